import ApsioNet

/// OpenSSL's SHA-256, the one the daemon uses.
let sha256 = OpenSSLSHA256()
