/// What the server lets a client take: the parser limits for each request (head, fields, body
/// before and after gzip), and connections and time.
public struct HTTPServerLimits: Sendable, Equatable {
    public var http: HTTPLimits
    /// Connections open at once; one more gets a 503 and is closed.
    public var maxConnections: Int
    /// How long a kept-alive connection may wait for its next request's first byte.
    public var idleTimeout: Duration
    /// From a request's first byte (or from the accept, for a TLS handshake) to its last: a client
    /// that sends its head a byte at a time (slowloris) is cut off here.
    public var requestTimeout: Duration
    /// How long writing a response may take.
    public var writeTimeout: Duration

    public init(
        http: HTTPLimits = .default, maxConnections: Int = 64, idleTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(10), writeTimeout: Duration = .seconds(10)
    ) {
        self.http = http
        self.maxConnections = maxConnections
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.writeTimeout = writeTimeout
    }

    public static let `default` = HTTPServerLimits()
}
