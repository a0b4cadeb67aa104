/// A self-signed test certificate (EC P-256, CN "netquality test", valid a hundred years) with
/// its key, and a key of another certificate: fixtures for loading TLS files, not secrets.
enum TLSFixtures {
  static let certificate = """
    -----BEGIN CERTIFICATE-----
    MIIBnDCCAUKgAwIBAgIUJP+qmKL1CLdodtYTZYrk5MCFT5MwCgYIKoZIzj0EAwIw
    GjEYMBYGA1UEAwwPbmV0cXVhbGl0eSB0ZXN0MCAXDTI2MTEyNDA5NTMxNloYDzIx
    MjYxMDMxMDk1MzE2WjAaMRgwFgYDVQQDDA9uZXRxdWFsaXR5IHRlc3QwWTATBgcq
    hkjOPQIBBggqhkjOPQMBBwNCAARLRC8aNi4IZQP3AlEqkaFXxn2qDsXWDGOUCaDG
    RdcPNok6hCspzWGJPpgWOrNvbWZlGxqNou6ntOcJd6YoNH1Go2QwYjAdBgNVHQ4E
    FgQUpl3Mnn8g96dinXarb+60nokxen4wHwYDVR0jBBgwFoAUpl3Mnn8g96dinXar
    b+60nokxen4wDwYDVR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqG
    SM49BAMCA0gAMEUCIHkfu43vTng/RiVMw1+4DUcL0EA65/dGKDhRUI8L991PAiEA
    8HbVaVNUhUTYvLbnu6Ohjg61clqppX3UdwUAAwTCHJU=
    -----END CERTIFICATE-----
    """

  static let key = """
    -----BEGIN PRIVATE KEY-----
    MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgEqSePoUlcILfbvgN
    GXpIMQqHGcI9gRRU43D5LCjSnx6hRANCAARLRC8aNi4IZQP3AlEqkaFXxn2qDsXW
    DGOUCaDGRdcPNok6hCspzWGJPpgWOrNvbWZlGxqNou6ntOcJd6YoNH1G
    -----END PRIVATE KEY-----
    """

  static let otherKey = """
    -----BEGIN PRIVATE KEY-----
    MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgF8GKioXlSUSLK5yg
    P/aR/4hzajK+pphZx/Gn28Mtv5ehRANCAASr1/vYCsp6mYM17xntj0D/iUp/aGKI
    GYBy4aut8wIoajgD1uiYZzzyDMfeHZbJElw5rvzuAovwRn0o8yxL+uOf
    -----END PRIVATE KEY-----
    """
}
