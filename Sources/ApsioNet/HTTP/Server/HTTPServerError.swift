/// Why the server could not start.
package enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidBindAddress(String)
    case bindFailed(address: String, port: Int, reason: String)
    case tlsConfiguration(String)
    case alreadyStarted

    package var description: String {
        switch self {
        case .invalidBindAddress(let address): "cannot listen on \"\(address)\": give an IPv4 or IPv6 address"
        case .bindFailed(let address, let port, let reason):
            "cannot listen on \(address) port \(port): \(reason) (is another process using the port?)"
        case .tlsConfiguration(let why): "TLS configuration error: \(why)"
        case .alreadyStarted: "the server is already started"
        }
    }
}
