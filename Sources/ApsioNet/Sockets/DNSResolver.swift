#if canImport(Glibc)
internal import Glibc
#endif
import ApsioPOSIX
import Synchronization

/// Name resolution with getaddrinfo, which blocks: each lookup runs on a thread of its own, never
/// on the task pool, and the caller stops waiting at its deadline or on cancellation (the lookup
/// itself then finishes in the background and its answer is dropped). A thread, not a dispatch
/// queue: libdispatch's pool, once started, wakes the process every second for good.
enum DNSResolver {
    struct Failure: Error, Equatable {
        let reason: String
    }

    /// Lookups whose thread has not ended: a resolver that answers nobody must not leave a thread
    /// behind for every connection tried.
    private static let inFlight = Atomic<Int>(0)
    static let maxInFlight = 16

    /// Addresses for a TCP connection to `host`:`port`, in getaddrinfo's order. Throws `Failure`,
    /// `TransportError.timedOut` or `CancellationError`.
    static func resolve(host: String, port: Int, timeout: Duration) async throws -> [SocketAddress] {
        // An address literal needs no lookup: getaddrinfo with AI_NUMERICHOST answers at once
        // without reading a file or asking a server, so it runs here instead of waiting for a
        // thread of the lookup queue (which a busy process may not have free for a while).
        if isAddressLiteral(host) { return try lookUp(host: host, port: port, numeric: true).get() }
        guard inFlight.add(1, ordering: .relaxed).newValue <= maxInFlight else {
            inFlight.subtract(1, ordering: .relaxed)
            throw Failure(reason: "\(maxInFlight) name lookups are still waiting for the resolver")
        }
        let once = OneShot<[SocketAddress]>()
        let deadline = Task {
            try await Task.sleep(for: timeout)
            once.settle(.failure(TransportError.timedOut))
        }
        defer { deadline.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.install(continuation)
                let started = DetachedThread.tryStart(name: "apsio-resolve") {
                    let answer = lookUp(host: host, port: port)
                    inFlight.subtract(1, ordering: .relaxed)
                    once.settle(answer)
                }
                if started != 0 {
                    inFlight.subtract(1, ordering: .relaxed)
                    once.settle(.failure(Failure(reason: "no thread for the lookup: \(String(cString: strerror(started)))")))
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
