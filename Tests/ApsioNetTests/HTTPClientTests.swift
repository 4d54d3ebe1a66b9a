import ApsioNet
import ApsioTestSupport
import Foundation
import Glibc
import Testing

@Suite struct HTTPClientTests {
    /// A route that answers with what it received, so the test sees the request as the server did.
    static func echoRouter(recorder: Recorder = Recorder()) -> HTTPRouter {
        var router = HTTPRouter()
        router.add("POST", "/v1/live/hello") { request in
            recorder.record("key=\(request.headers["Apsio-App-Key"] ?? "-")")
            recorder.record("agent=\(request.headers["User-Agent"] ?? "-")")
            recorder.record("encoding=\(request.headers["Content-Encoding"] ?? "-")")
            recorder.record("host=\(request.headers["Host"] ?? "-")")
            return .json(request.body)
        }
        router.add("GET", "/big") { _ in
            .text(String(repeating: "a line of a large body\n", count: 5000))
        }
        router.add("POST", "/collector/v1/logs") { request in .json(request.body, status: 202) }
        return router
    }

    @Test func plainRoundTripWithAGzipBody() async throws {
        let recorder = Recorder()
        try await withServer(Self.echoRouter(recorder: recorder)) { _, port in
            let client = try testClient()
            let json = Array(#"{"install":"abc","proof":"00"}"#.utf8)
            let response = try await client.send(
                .postJSON("/v1/live/hello", json: json, headers: ["Apsio-App-Key": "apsio_app_test"]), to: loopback(port))
            #expect(response.status == 200)
            #expect(response.body == json, "the server undid the gzip the client applied")
            #expect(response.headers["content-type"] == "application/json")
            #expect(recorder.contains("key=apsio_app_test"))
            #expect(recorder.contains("agent=apsiod/0.1.0"))
            #expect(recorder.contains("encoding=gzip"))
            #expect(recorder.contains("host=127.0.0.1:\(port)"))
        }
    }

    @Test func gzipResponsesAreDecoded() async throws {
        try await withServer(Self.echoRouter()) { _, port in
            let response = try await testClient().send(.get("/big"), to: loopback(port))
            #expect(response.headers["Content-Encoding"] == "gzip", "the server compressed it")
            #expect(response.body == Array(String(repeating: "a line of a large body\n", count: 5000).utf8))
        }
    }

    @Test func basePathIsPrefixed() async throws {
        try await withServer(Self.echoRouter()) { _, port in
            let endpoint = try HTTPEndpoint(baseURL: "http://127.0.0.1:\(port)/collector")
            let response = try await testClient().send(.postJSON("/v1/logs", json: Array("{}".utf8)), to: endpoint)
            #expect(response.status == 202)
        }
    }

    @Test func overIPv6Loopback() async throws {
        var router = HTTPRouter()
        router.add("GET", "/") { _ in .text("six") }
        let server = HTTPServer(bind: "::1", limits: testServerLimits, router: router)
        // A machine without IPv6 on loopback has nothing to test here.
        guard let port = try? await server.start() else { return }
        do {
            let response = try await testClient().send(.get("/"), to: try HTTPEndpoint(baseURL: "http://[::1]:\(port)"))
            #expect(String(decoding: response.body, as: UTF8.self) == "six")
        } catch {
            Issue.record(error)
        }
        await server.stop()
    }

    @Test func connectionsAreKeptAliveAndReused() async throws {
        try await withServer(Self.echoRouter()) { server, port in
            let client = try testClient()
            for _ in 0..<3 {
                _ = try await client.send(.postJSON("/v1/live/hello", json: Array("{}".utf8)), to: loopback(port))
            }
            #expect(server.connectionCount == 1, "three requests, one connection")
            client.closeIdleConnections()
            try await poll("closing the pool closes the connection") { server.connectionCount == 0 }
        }
    }

    /// A server that closes a kept-alive connection after answering: the next request still succeeds,
    /// on a new connection.
    @Test func aConnectionTheServerClosedIsReplaced() async throws {
        try await withRawServer(serve: { fd, _ in
            _ = RawServer.readHead(fd)
            RawServer.write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }) { raw in
            let client = try testClient()
            let endpoint = try loopback(raw.port)
            #expect(try await client.send(.get("/"), to: endpoint).body == Array("ok".utf8))
            // Once the server has closed it: before that, the connection looks alive, and a POST
            // written into it as it closes is reset, which is a different case (not retried, as a
            // POST may have had its effect).
            try await poll("the connection closed") { raw.closedCount == 1 }
            #expect(try await client.send(.postJSON("/", json: []), to: endpoint).body == Array("ok".utf8))
            #expect(raw.acceptedCount == 2)
        }
    }

    // MARK: Redirects

    @Test func aRedirectIsReturnedNotFollowed() async throws {
        try await withRawServer(serve: { fd, _ in
            _ = RawServer.readHead(fd)
            RawServer.write(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        }) { elsewhere in
            var router = HTTPRouter()
            router.add("POST", "/v1/live/hello") { _ in
                HTTPServerResponse(status: 302, headers: ["Location": "http://127.0.0.1:\(elsewhere.port)/v1/live/hello"])
            }
            try await withServer(router) { _, port in
                let response = try await testClient().send(
                    .postJSON("/v1/live/hello", json: Array("{}".utf8), headers: ["Apsio-App-Key": "secret"]), to: loopback(port))
                #expect(response.status == 302)
                #expect(response.headers["Location"] == "http://127.0.0.1:\(elsewhere.port)/v1/live/hello")
            }
            #expect(elsewhere.acceptedCount == 0, "the redirect target never saw a connection")
        }
    }

    // MARK: Bodies framed both ways

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello world",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello world",
    ])
    func framedBodies(response: String) async throws {
        try await withRawServer(serve: { fd, _ in
            _ = RawServer.readHead(fd)
            RawServer.write(fd, response)
        }) { raw in
            let answer = try await testClient().send(.get("/"), to: loopback(raw.port))
            #expect(String(decoding: answer.body, as: UTF8.self) == "hello world")
        }
    }

    // MARK: Malformed responses

    static let gzipBomb: [UInt8] = {
        let packed = try! Gzip.compress([UInt8](repeating: 0, count: 10 << 20))
        return Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: \(packed.count)\r\n\r\n".utf8) + packed
    }()

    static let bigHeaders: [UInt8] = {
        var text = "HTTP/1.1 200 OK\r\n"
        for index in 0..<200 { text += "X-Big-\(index): " + String(repeating: "v", count: 8192) + "\r\n" }
        return Array((text + "Content-Length: 0\r\n\r\n").utf8)
    }()

    static let malformed: [(String, [UInt8], HTTPClientError)] = [
        ("bad status line", Array("HTTP/1.1 OK\r\nContent-Length: 0\r\n\r\n".utf8), .malformedResponse(.invalidStartLine)),
        ("not HTTP at all", Array("SSH-2.0-OpenSSH_9.2\r\n".utf8), .malformedResponse(.invalidStartLine)),
        ("200 headers of 8 KiB", bigHeaders, .malformedResponse(.headersTooLarge(limit: 64 * 1024))),
        ("truncated chunk", Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nonly a few".utf8),
            .malformedResponse(.truncated("chunked body"))),
        ("lying Content-Length", Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nshort".utf8),
            .malformedResponse(.truncated("body (995 bytes of Content-Length missing)"))),
        ("cut in the head", Array("HTTP/1.1 200 OK\r\nContent-".utf8), .malformedResponse(.truncated("response head"))),
        ("gzip bomb", gzipBomb, .bodyTooLarge(limit: 1 << 20)),
        ("body over the limit", Array("HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n".utf8), .bodyTooLarge(limit: 1 << 20)),
        ("corrupt gzip", Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope".utf8),
            .corruptGzipBody(.corrupt("incorrect header check"))),
        ("unknown encoding", Array("HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 4\r\n\r\nbody".utf8),
            .unsupportedContentEncoding("br")),
        ("switching protocols", Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8),
            .malformedResponse(.unexpectedSwitchingProtocols)),
        ("smuggling framing", Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n".utf8),
            .malformedResponse(.conflictingFraming)),
        ("closed without a word", [], .connectionClosed),
    ]

    @Test(arguments: malformed)
    func malformedResponse(label: String, bytes: [UInt8], expected: HTTPClientError) async throws {
        try await withRawServer(serve: { fd, _ in
            _ = RawServer.readHead(fd)
            RawServer.write(fd, bytes)
        }) { raw in
            await #expect(throws: expected, "\(label)") {
                try await testClient().send(.get("/"), to: loopback(raw.port))
            }
        }
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        try await withRawServer(serve: { fd, _ in
            _ = RawServer.readHead(fd)
            // Holds the connection until the client gives up and closes it.
            var byte: UInt8 = 0
            _ = recv(fd, &byte, 1, 0)
        }) { raw in
            await #expect(throws: HTTPClientError.timedOut(.exchange, after: .milliseconds(200))) {
                try await testClient().send(.get("/", timeout: .milliseconds(200)), to: loopback(raw.port))
            }
        }
    }

    @Test func connectionRefusedIsNamed() async throws {
        // A bound socket that does not listen: connecting to its port is refused, and no other
        // process can take the port meanwhile.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        await #expect(throws: HTTPClientError.connectionRefused(host: "127.0.0.1", port: port)) {
            try await testClient().send(.get("/"), to: loopback(port))
        }
    }

    @Test func requestsThatCouldSplitALineAreRefused() async throws {
        let client = try testClient()
        let endpoint = try loopback(9)
        for request in [
            HTTPRequest.get("/x", headers: ["Apsio-Live-Token": "a\r\nX-Injected: 1"]),
            HTTPRequest.get("/x y"),
            HTTPRequest.get("no-slash"),
            HTTPRequest.get("/x", headers: ["Bad Name": "v"]),
            HTTPRequest.get("/x", headers: ["Content-Length": "5"]),
            HTTPRequest(method: "GE T", path: "/"),
        ] {
            await #expect(throws: HTTPClientError.self) { try await client.send(request, to: endpoint) }
        }
    }

    // MARK: Cancellation

    /// The live channel's stop: cancelling a held long poll throws CancellationError at once, and
    /// the server sees the connection close (its handler is cancelled).
    @Test func cancellingAHeldLongPollClosesTheConnection() async throws {
        let recorder = Recorder()
        var router = HTTPRouter()
        router.add("GET", "/v1/live/next") { _ in
            recorder.record("held")
            do {
                try await Task.sleep(for: .seconds(25))
                return HTTPServerResponse(status: 204)
            } catch {
                recorder.record("handler cancelled")
                return HTTPServerResponse(status: 204)
            }
        }
        try await withServer(router) { server, port in
            let client = try testClient()
            let held = Task { try await client.send(.get("/v1/live/next?install=abc", timeout: .seconds(60)), to: loopback(port)) }
            try await poll("the request held") { recorder.contains("held") }
            held.cancel()
            await #expect(throws: CancellationError.self) { try await held.value }
            try await poll("the server saw the client go") { recorder.contains("handler cancelled") }
            try await poll("every connection closed") { server.connectionCount == 0 }
        }
    }
}
