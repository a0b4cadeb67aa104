#ifndef NETQUALITY_CZLIB_SHIM_H
#define NETQUALITY_CZLIB_SHIM_H
#include <zlib.h>
#endif
