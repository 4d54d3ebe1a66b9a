import Foundation

/// Certificates made with the `openssl` command for one test: a test CA, a server certificate for
/// localhost, 127.0.0.1, ::1 and `collectorName` signed by it, one for another host name signed by it, and a
/// self-signed one nobody trusts. The client trusts the test CA through its CA-file option; no
/// test ever turns verification off.
package struct TestCertificates: Sendable {
    let directory: TemporaryDirectory
    package var caFile: String { path("ca.pem") }
    package var serverCertificate: String { path("server.pem") }
    package var serverKey: String { path("server.key") }
    package var otherHostCertificate: String { path("other.pem") }
    package var otherHostKey: String { path("other.key") }
    package var untrustedCertificate: String { path("untrusted.pem") }
    package var untrustedKey: String { path("untrusted.key") }
    /// A client certificate signed by the test CA (`extendedKeyUsage=clientAuth`), for a server
    /// that asks for one; its key is mode 0600.
    package var clientCertificate: String { path("client.pem") }
    package var clientKey: String { path("client.key") }

    /// A name no resolver knows (`.test` is reserved) that the server certificate holds: a
    /// collector reached through a proxy that resolves it, when the box cannot.
    package static let collectorName = "collector.apsio.test"

    private func path(_ name: String) -> String { directory.url.appendingPathComponent(name).path }

    /// Makes them on a thread of its own: the openssl runs block, and the cooperative pool is
    /// needed by the servers and clients of the tests running meanwhile.
    package static func make() async throws -> TestCertificates {
        try await onOwnThread { try TestCertificates() }
    }

    private init() throws {
        directory = try TemporaryDirectory("apsio-certs")
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(["req", "-x509"] + ec + [
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Apsio Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try sign(name: "server", subjectAltName: "DNS:localhost,DNS:\(Self.collectorName),IP:127.0.0.1,IP:::1")
        try sign(name: "other", subjectAltName: "DNS:other.example")
        try sign(name: "client", subjectAltName: "DNS:box.example", usage: "clientAuth")
        chmod(path("client.key"), 0o600)
        try run(["req", "-x509"] + ec + [
            "-keyout", "untrusted.key", "-out", "untrusted.pem", "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ])
    }

    private func sign(name: String, subjectAltName: String, usage: String = "serverAuth") throws {
        try run([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)",
        ])
        try directory.write(
            "\(name).ext",
            "subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=\(usage)\n")
        try run([
            "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "\(name).pem", "-days", "2", "-extfile", "\(name).ext",
        ])
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CertificateError(message: "openssl \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
    }

    package struct CertificateError: Error, CustomStringConvertible {
        let message: String
        package var description: String { message }
    }
}
