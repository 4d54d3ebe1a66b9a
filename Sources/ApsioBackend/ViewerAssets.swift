import ApsioCore
import ApsioNet

/// The viewer's pages as the binary carries them (`Sources/ApsioBackend/Viewer`, embedded at build
/// time by the EmbedViewerAssets plugin), each with its content type and an ETag of its bytes.
package struct ViewerAsset: Sendable, Equatable {
    package let name: String
    package let contentType: String
    package let body: [UInt8]
    /// A strong validator: the first 16 bytes of the SHA-256 of the body, so a reload after an
    /// upgrade never keeps a stale script beside a new page.
    package let etag: String
}

package enum ViewerAssets {
    /// The page every viewer route starts from.
    package static let indexName = "index.html"

    /// Every embedded asset by file name.
    package static let all: [String: ViewerAsset] = {
        let hashing = OpenSSLSHA256()
        var assets: [String: ViewerAsset] = [:]
        for file in files {
            let body = Array(file.text.utf8)
            assets[file.name] = ViewerAsset(
                name: file.name, contentType: contentType(of: file.name), body: body,
                etag: "\"" + Hex.lowercase(hashing.sha256(body).prefix(16)) + "\"")
        }
        return assets
    }()

    /// Nothing inline runs, and the pages talk only to the backend that served them.
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func contentType(of name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".svg") { return "image/svg+xml" }
        return "application/octet-stream"
    }
}
