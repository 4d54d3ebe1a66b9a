import ApsioNet
import ApsioTestSupport
import Foundation
import Testing

@Suite struct HTTPServerTests {
    static func router(recorder: Recorder = Recorder()) -> HTTPRouter {
        var router = HTTPRouter()
        router.add("GET", "/q") { request in .text("install=\(request.query("install") ?? "-")") }
        router.add("POST", "/echo") { request in
            recorder.record("body=\(request.body.count)")
            return .json(request.body)
        }
        return router
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET /q HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n",
        "GET /q HTTP/1.1\nHost: x\n\n",
        "\u{16}\u{3}\u{1}\u{2}\u{0}\u{1}\u{0}\u{1}\u{fc}\u{3}\u{3}\r\n\r\n",
    ])
    func malformedRequestGets400AndClose(request: String) async throws {
        try await withServer(Self.router()) { _, port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send(request)
            let answer = await client.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(answer)")
            #expect(answer.contains("Connection: close"))
            // The server lives on: the next client is served.
            let next = try RawClient(port: port)
            defer { next.close() }
            next.send("GET /q?install=a%20b+c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(await next.readToEnd().hasSuffix("install=a b c"))
        }
    }

    @Test(arguments: [true, false])
    func keepAliveAndPipelining(mayHold: Bool) async throws {
        var router = Self.router()
        router.mayHold = { _ in mayHold }
        try await withServer(router) { _, port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send(
                "GET /q?install=one HTTP/1.1\r\nHost: x\r\n\r\nPOST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
                    + "GET /q?install=three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = await client.readToEnd()
            #expect(answer.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
            #expect(answer.contains("install=one") && answer.contains("{}") && answer.hasSuffix("install=three"))
        }
    }

    /// A handler that may hold its request (a long poll) is cancelled as soon as its client
    /// leaves, so a device or viewer that hung up holds nothing. Which requests may hold is the
    /// server's owner's to say (`HTTPRouter.mayHold`); by default every one may.
    @Test func aHeldHandlerIsCancelledWhenItsClientLeaves() async throws {
        let recorder = Recorder()
        let (release, _) = AsyncStream<Void>.makeStream()
        var router = HTTPRouter()
        router.add("GET", "/wait") { _ in
            recorder.record("started")
            for await _ in release { break }
            recorder.record(Task.isCancelled ? "cancelled" : "finished")
            return .text("done")
        }
        try await withServer(router) { server, port in
            let client = try RawClient(port: port)
            client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
            try await poll("the handler started") { recorder.contains("started") }
            client.close()
            try await poll("the handler cancelled") { recorder.contains("cancelled") }
            try await poll("every connection closed") { server.connectionCount == 0 }
        }
    }

    @Test func unknownRouteAndMethod() async throws {
        try await withServer(Self.router()) { _, port in
            let client = try testClient()
            #expect(try await client.send(.get("/nope"), to: loopback(port)).status == 404)
            let wrongMethod = try await client.send(.get("/echo"), to: loopback(port))
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.headers["Allow"] == "POST")
        }
    }

    @Test func oversizedBodyGets413() async throws {
        var limits = testServerLimits
        limits.http.maxBodyBytes = 1000
        let recorder = Recorder()
        try await withServer(Self.router(recorder: recorder), limits: limits) { _, port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n")
            #expect(await client.readToEnd().hasPrefix("HTTP/1.1 413 "))
            // At the limit it is served.
            let response = try await testClient().send(
                .postJSON("/echo", json: [UInt8](repeating: 0x20, count: 1000), gzip: false), to: loopback(port))
            #expect(response.status == 200 && response.body.count == 1000)
        }
    }

    /// A small gzip body that would expand past the limit is refused like a large one.
    @Test func gzipBombBodyGets413() async throws {
        let recorder = Recorder()
        try await withServer(Self.router(recorder: recorder)) { _, port in
            let bomb = [UInt8](repeating: 0x7b, count: 10 << 20)
            let response = try await testClient().send(.postJSON("/echo", json: bomb), to: loopback(port))
            #expect(response.status == 413)
            #expect(recorder.all.isEmpty, "the handler never ran")
        }
    }

    /// A zstd body is read as a gzip one is, under the same limit: a small one that would expand
    /// past it is refused before the handler runs, a damaged one is a 400, a coding the server
    /// does not know a 415.
    @Test func zstdBodiesAreReadWithinTheLimit() async throws {
        let recorder = Recorder()
        try await withServer(Self.router(recorder: recorder)) { _, port in
            func post(_ body: [UInt8], coding: String) async throws -> HTTPResponse {
                try await testClient().send(
                    .postJSON("/echo", json: body, headers: ["Content-Encoding": coding], gzip: false), to: loopback(port))
            }
            let text = Array(String(repeating: "{\"k\":\"v\"}\n", count: 1000).utf8)
            let echoed = try await post(Zstd.compress(text), coding: "zstd")
            #expect(echoed.status == 200 && echoed.body == text)
            #expect(recorder.all.count == 1)
            let bomb = try Zstd.compress([UInt8](repeating: 0x7b, count: 10 << 20))
            #expect(bomb.count < 4096)
            #expect(try await post(bomb, coding: "zstd").status == 413)
            #expect(try await post(Array("not zstd".utf8), coding: "zstd").status == 400)
            #expect(try await post(text, coding: "br").status == 415)
            #expect(recorder.all.count == 1, "the handler ran for the good body only")
        }
    }

    /// Headers that never finish are cut off at the request deadline with a 408.
    @Test func slowlorisIsClosedAtTheDeadline() async throws {
        var limits = testServerLimits
        limits.requestTimeout = .milliseconds(300)
        try await withServer(Self.router(), limits: limits) { _, port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send("GET /q HTTP/1.1\r\nHost: x\r\nX-Slow: ")
            let answer = await client.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 408 "))
        }
    }

    @Test func anIdleKeptAliveConnectionIsClosedQuietly() async throws {
        var limits = testServerLimits
        limits.idleTimeout = .milliseconds(200)
        try await withServer(Self.router(), limits: limits) { server, port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send("GET /q HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = await client.readToEnd()
            #expect(answer.hasPrefix("HTTP/1.1 200 "), "answered, then closed when idle")
            try await poll("every connection closed") { server.connectionCount == 0 }
        }
    }

    @Test func connectionsBeyondTheLimitAreRefused() async throws {
        var limits = testServerLimits
        limits.maxConnections = 2
        try await withServer(Self.router(), limits: limits) { server, port in
            let first = try RawClient(port: port)
            let second = try RawClient(port: port)
            defer {
                first.close()
                second.close()
            }
            try await poll("two connections served") { server.connectionCount == 2 }
            let third = try RawClient(port: port)
            defer { third.close() }
            #expect(await third.readToEnd().hasPrefix("HTTP/1.1 503 "))
            // The first two are still served.
            first.send("GET /q?install=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(await first.readToEnd().hasSuffix("install=1"))
        }
    }

    @Test func headerLimitGets431() async throws {
        var limits = testServerLimits
        limits.http.maxHeaderBytes = 512
        try await withServer(Self.router(), limits: limits) { _, port in
            let client = try RawClient(port: port)
            defer { client.close() }
            client.send("GET /q HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "v", count: 600) + "\r\n\r\n")
            #expect(await client.readToEnd().hasPrefix("HTTP/1.1 431 "))
        }
    }

    @Test func startTwiceIsRefused() async throws {
        try await withServer(Self.router()) { server, _ in
            await #expect(throws: HTTPServerError.alreadyStarted) { _ = try await server.start() }
        }
    }

    @Test func queryStrings() {
        let items = QueryString.parse("install=a%2Fb&empty=&flag&plus=x+y&bad=%zz")
        #expect(items.map(\.name) == ["install", "empty", "flag", "plus", "bad"])
        #expect(items.map(\.value) == ["a/b", "", "", "x y", "%zz"])
    }
}
