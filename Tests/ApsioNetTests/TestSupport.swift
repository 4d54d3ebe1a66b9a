import ApsioNet
import Foundation
import Synchronization

/// What handlers and fake servers saw, read by the test once the event it waits for has happened.
final class Recorder: Sendable {
    private let entries = Mutex<[String]>([])

    func record(_ entry: String) { entries.withLock { $0.append(entry) } }
    var all: [String] { entries.withLock { $0 } }
    func contains(_ entry: String) -> Bool { all.contains(entry) }
}

/// Runs `body` against a started server and stops the server afterwards, even when `body` throws.
@discardableResult
func withServer<T>(
    _ router: HTTPRouter, tls: HTTPServer.TLSFiles? = nil, limits: HTTPServerLimits = .default,
    _ body: (HTTPServer, Int) async throws -> T
) async throws -> T {
    let server = HTTPServer(tls: tls, limits: limits, router: router)
    let port = try await server.start()
    do {
        let result = try await body(server, port)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// Runs `body` against a raw fake server and stops it afterwards.
@discardableResult
func withRawServer<T>(
    serve: @escaping @Sendable (Int32, Int) -> Void, _ body: (RawServer) async throws -> T
) async throws -> T {
    let server = try RawServer(serve: serve)
    do {
        let result = try await body(server)
        server.stop()
        return result
    } catch {
        server.stop()
        throw error
    }
}

func loopback(_ port: Int, scheme: HTTPEndpoint.Scheme = .http, host: String = "127.0.0.1") throws -> HTTPEndpoint {
    try HTTPEndpoint(scheme: scheme, host: host, port: port)
}
