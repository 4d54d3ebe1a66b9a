#if canImport(Glibc)
internal import Glibc
#endif
import Dispatch

/// Name resolution with getaddrinfo, which blocks: it runs on a queue of its own, never on the
/// cooperative pool, and the caller stops waiting at its deadline or on cancellation (the lookup
/// itself then finishes in the background and its answer is dropped).
enum DNSResolver {
    struct Failure: Error, Equatable {
        let reason: String
    }

    private static let queue = DispatchQueue(label: "apsio.dns", attributes: .concurrent)

    /// Addresses for a TCP connection to `host`:`port`, in getaddrinfo's order. Throws `Failure`,
    /// `TransportError.timedOut` or `CancellationError`.
    static func resolve(host: String, port: Int, timeout: Duration) async throws -> [SocketAddress] {
        // An address literal needs no lookup: getaddrinfo with AI_NUMERICHOST answers at once
        // without reading a file or asking a server, so it runs here instead of waiting for a
        // thread of the lookup queue (which a busy process may not have free for a while).
        if isAddressLiteral(host) { return try lookUp(host: host, port: port, numeric: true).get() }
        let once = OneShot<[SocketAddress]>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.install(continuation)
                queue.async { once.settle(lookUp(host: host, port: port)) }
                let (seconds, attoseconds) = timeout.components
                let nanos = max(0, Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
                queue.asyncAfter(deadline: .now() + .nanoseconds(nanos)) {
                    once.settle(.failure(TransportError.timedOut))
                }
            }
        } onCancel: {
            once.settle(.failure(CancellationError()))
        }
    }

    private static func isAddressLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    private static func lookUp(host: String, port: Int, numeric: Bool = false) -> Result<[SocketAddress], any Error> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICSERV | (numeric ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            let reason = code == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(code))
            return .failure(Failure(reason: reason))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr {
                addresses.append(SocketAddress(family: entry.pointee.ai_family, pointer: address, length: entry.pointee.ai_addrlen))
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(Failure(reason: "no address")) }
        return .success(addresses)
    }
}
