# Shared by the end-to-end scripts that build network namespaces: source it, then call
#   skip_without_namespaces NAME NEEDS
# which exits the script with status 0 and a printed reason when not root (NAME: what is
# skipped, NEEDS: what root is needed for) or when the kernel has no network namespaces.
skip_without_namespaces() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP $1: needs root for $2"
    exit 0
  fi
  if ! ip netns list >/dev/null 2>&1; then
    echo "SKIP $1: this kernel or container has no network namespaces"
    exit 0
  fi
}
