/// What the server lets a client take: the parser limits for each request (head, fields, body
/// before and after gzip), and connections and time.
package struct HTTPServerLimits: Sendable, Equatable {
    package var http: HTTPLimits
    /// Connections open at once; one more gets a 503 and is closed.
    package var maxConnections: Int
    /// How long a kept-alive connection may wait for its next request's first byte.
    package var idleTimeout: Duration
    /// From a request's first byte (or from the accept, for a TLS handshake) to its last: a client
    /// that sends its head a byte at a time (slowloris) is cut off here.
    package var requestTimeout: Duration
    /// How long writing a response may take.
    package var writeTimeout: Duration

    package init(
        http: HTTPLimits = .default, maxConnections: Int = 64, idleTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(10), writeTimeout: Duration = .seconds(10)
    ) {
        self.http = http
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.writeTimeout = writeTimeout
    }

    package static let `default` = HTTPServerLimits()
}
