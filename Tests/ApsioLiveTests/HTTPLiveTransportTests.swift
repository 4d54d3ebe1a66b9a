import ApsioCore
import ApsioNet
import ApsioTestSupport
import Synchronization
import Testing
@testable import ApsioLive

/// The live channel's requests as a real server on loopback sees them.
@Suite struct HTTPLiveTransportTests {
    final class Seen: Sendable {
        let requests = Mutex<[HTTPServerRequest]>([])
    }

    func serve(_ handler: @escaping HTTPRouter.Handler) async throws -> (HTTPServer, Int, Seen) {
        let seen = Seen()
        var router = HTTPRouter()
        for path in ["/v1/live/hello", "/v1/live/frames", "/v1/live/results", "/v1/live/next", "/elsewhere"] {
            for method in ["GET", "POST"] {
                router.add(method, path) { request in
                    seen.requests.withLock { $0.append(request) }
                    return await handler(request)
                }
            }
        }
        let server = HTTPServer(router: router)
        let port = try await server.start()
        return (server, port, seen)
    }

    func transport(port: Int) throws -> HTTPLiveTransport {
        HTTPLiveTransport(
            client: try HTTPClient(), origin: try #require(LiveOrigin("http://127.0.0.1:\(port)")),
            appKey: AppKey("apsio_app_secret_key"))
    }

    @Test func everyRequestCarriesTheAppKeyAndTheTokenWhereItHasOne() async throws {
        let (server, port, seen) = try await serve { _ in .json(Array("{\"viewers\":2}".utf8)) }
        defer { Task { await server.stop() } }
        let live = try transport(port: port)
        let token = try #require(DeviceToken(String(repeating: "ab", count: 32)))
        let body = GzipBodyCompressor().compress(Array("{\"install\":\"x\"}".utf8))

        let hello = try await live.send(LiveHTTPRequest(method: .post, path: "/v1/live/hello", gzipBody: body, token: nil))
        #expect(hello == .status(200, body: Array("{\"viewers\":2}".utf8), retryAfter: nil))
        _ = try await live.send(LiveHTTPRequest(method: .post, path: "/v1/live/frames", gzipBody: body, token: token))

        let requests = seen.requests.withLock { $0 }
        try #require(requests.count == 2)
        #expect(requests.allSatisfy { $0.headers["Apsio-App-Key"] == "apsio_app_secret_key" })
        #expect(requests[0].headers["Apsio-Live-Token"] == nil)
        #expect(requests[1].headers["Apsio-Live-Token"] == token.secretHex)
        // The server undid the gzip the channel applied: the body arrives as the JSON it was.
        #expect(requests[0].body == Array("{\"install\":\"x\"}".utf8))
        #expect(requests[0].headers["Content-Encoding"] == "gzip")
    }

    /// "The SDK MUST NOT follow a redirect on the live channel: a 3xx is a failed request"
    @Test func aRedirectIsReturnedNotFollowed() async throws {
        let (server, port, seen) = try await serve { request in
            if request.path == "/elsewhere" { return .json(Array("{}".utf8)) }
            return HTTPServerResponse(status: 302, headers: ["Location": "/elsewhere", "Retry-After": "7"])
        }
        defer { Task { await server.stop() } }
        let answer = try await transport(port: port).send(
            LiveHTTPRequest(method: .post, path: "/v1/live/hello", gzipBody: GzipBodyCompressor().compress([]), token: nil))
        #expect(answer == .status(302, body: [], retryAfter: .seconds(7)))
        #expect(seen.requests.withLock { $0.map(\.path) } == ["/v1/live/hello"])
    }

    /// A failure is told why, for the daemon's log: the request, the origin, the client's reason,
    /// and never the query (it holds the install), a header or the token.
    @Test func aRefusedConnectionIsAFailureAndSaysWhy() async throws {
        let (server, port, _) = try await serve { _ in .json([]) }
        await server.stop()
        let reports = Mutex<[String?]>([])
        let live = HTTPLiveTransport(
            client: try HTTPClient(), origin: try #require(LiveOrigin("http://127.0.0.1:\(port)")),
            appKey: AppKey("apsio_app_secret_key"), report: { failure in reports.withLock { $0.append(failure) } })
        let token = try #require(DeviceToken(String(repeating: "ab", count: 32)))
        let answer = try await live.send(
            LiveHTTPRequest(method: .get, path: "/v1/live/next?install=x", gzipBody: nil, token: token))
        #expect(answer == .failed)
        let failure = try #require(reports.withLock { $0 }.first ?? nil)
        #expect(failure.hasPrefix("/v1/live/next to http://127.0.0.1:\(port) got no answer: connection refused"))
        #expect(!failure.contains("install=") && !failure.contains(token.secretHex) && !failure.contains("apsio_app_secret_key"))
    }

    /// An answer's bytes go to the channel as they came, even those that are not strict JSON: the
    /// channel reads them (`LiveBodyCoding`), with the strict parser every body a backend sends
    /// goes through (`LiveAnswerBodyTests`).
    @Test func anAnswerIsHandedOnAsItCame() async throws {
        let body = Array("{\"viewers\":0,\"viewers\":3}".utf8)
        let (server, port, _) = try await serve { _ in .json(body) }
        defer { Task { await server.stop() } }
        let hello = try await transport(port: port).send(
            LiveHTTPRequest(method: .post, path: "/v1/live/hello", gzipBody: GzipBodyCompressor().compress([]), token: nil))
        #expect(hello == .status(200, body: body, retryAfter: nil))
    }

    /// Cancelling the task abandons the held `next` at once: the server sees the connection go.
    @Test func cancellingAHeldNextClosesItsConnection() async throws {
        let (server, port, _) = try await serve { request in
            if request.path == "/v1/live/next" {
                try? await Task.sleep(for: .seconds(3600))
                return HTTPServerResponse(status: 204)
            }
            return .json([])
        }
        defer { Task { await server.stop() } }
        let live = try transport(port: port)
        let task = Task { try await live.send(LiveHTTPRequest(method: .get, path: "/v1/live/next?install=x", gzipBody: nil, token: nil)) }
        try await poll("the server holding next") { server.connectionCount == 1 }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        try await poll("the connection closed") { server.connectionCount == 0 }
    }

    @Test func theAppKeyNeverPrints() {
        let key = AppKey("apsio_app_secret_key")
        #expect(!"\(key)".contains("secret_key"))
        #expect(!String(reflecting: key).contains("secret_key"))
    }
}
