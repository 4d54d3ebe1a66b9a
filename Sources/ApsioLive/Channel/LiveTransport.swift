package import ApsioCore

/// One request of the live channel, as the runtime hands it to the network.
package struct LiveHTTPRequest: Sendable, Equatable {
    package enum Method: String, Sendable { case get = "GET", post = "POST" }

    package var method: Method
    /// Path and query, for example `/v1/live/next?install=…`.
    package var path: String
    /// Already gzip-compressed JSON, when there is a body.
    package var gzipBody: [UInt8]?
    /// `Apsio-Live-Token`, when the request carries one.
    package var token: DeviceToken?

    package init(method: Method, path: String, gzipBody: [UInt8]?, token: DeviceToken?) {
        self.method = method
        self.path = path
        self.gzipBody = gzipBody
        self.token = token
    }
}

/// The network under the live channel. The one implementation over `HTTPClient` sends to
/// `live.origin` only, with the app key on every request, never following a redirect; tests
/// put a scripted backend here.
package protocol LiveTransport: Sendable {
    /// Throws `CancellationError` when the task is cancelled (the request is abandoned at once);
    /// any other failure comes back as `.failed`.
    func send(_ request: LiveHTTPRequest) async throws(CancellationError) -> LiveResponse
}
