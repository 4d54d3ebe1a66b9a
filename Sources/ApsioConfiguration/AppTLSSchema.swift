import ApsioPOSIX

/// Reads `CAFile=`, `ClientCertificate=` and `ClientKey=`: absolute paths of files that exist, a
/// certificate with its key or neither, and a key other users cannot read (as `AppKeyFile=`).
enum AppTLSSchema {
    static func read(
        caFile: UnitFileEntry?, certificate: UnitFileEntry?, key: UnitFileEntry?, report: (Int?, String) -> Void
    ) -> AppTLS? {
        guard caFile != nil || certificate != nil || key != nil else { return nil }
        var tls = AppTLS()
        var usable = true
        func path(_ entry: UnitFileEntry, _ name: String, secret: Bool = false) -> String? {
            guard let path = ConfigValue.absoluteFilePath(entry.value) else {
                report(entry.line, "\(name)=\(entry.value) is not an absolute file path, like /etc/apsio/tls/\(secret ? "client.key" : "ca.pem")")
                return nil
            }
            let status: FileStatus?
            do {
                status = try FileSystem.status(path)
            } catch {
                report(entry.line, "\(name)=\(path) cannot be read: \(error)")
                return nil
            }
            guard let status else {
                report(entry.line, "\(name)=\(path) does not exist")
                return nil
            }
            guard status.kind == .regular else {
                report(entry.line, "\(name)=\(path) is not a regular file")
                return nil
            }
            if secret, status.mode & 0o006 != 0 {
                report(entry.line, "\(name)=\(path) can be read or written by every user (mode \(String(status.mode & 0o7777, radix: 8))); a private key is a secret: chmod o-rwx it (mode 0640, group apsio)")
                return nil
            }
            return path
        }
        if let caFile {
            tls.caFile = path(caFile, "CAFile")
            usable = usable && tls.caFile != nil
        }
        switch (certificate, key) {
        case (let certificate?, let key?):
            tls.clientCertificate = path(certificate, "ClientCertificate")
            tls.clientKey = path(key, "ClientKey", secret: true)
            usable = usable && tls.clientCertificate != nil && tls.clientKey != nil
        case (let certificate?, nil):
            report(certificate.line, "ClientCertificate= needs its private key in ClientKey=")
            usable = false
        case (nil, let key?):
            report(key.line, "ClientKey= needs its certificate in ClientCertificate=")
            usable = false
        case (nil, nil):
            break
        }
        return usable ? tls : nil
    }
}
