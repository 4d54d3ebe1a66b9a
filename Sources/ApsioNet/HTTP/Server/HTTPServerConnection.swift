/// One accepted connection: TLS if configured, then requests one after another (keep-alive,
/// pipelined bytes kept for the next), each read within the limits, handled, and answered.
struct HTTPServerConnection: Sendable {
    let transport: Transport
    let tls: TLSContext?
    let limits: HTTPServerLimits
    let router: HTTPRouter

    private enum Failure: Error {
        /// Answer with this status, then close.
        case answer(Int)
        /// Close without a word (the client left, or sent nothing before its idle time ran out).
        case close
    }

    func run() async {
        defer { transport.close() }
        if let tls {
            do {
                let session = try TLSSession(serverOf: tls, fd: transport.fd.rawValue)
                try await transport.startTLS(session, deadline: .now + limits.requestTimeout)
            } catch {
                return
            }
        }
        var pending: [UInt8] = []
        while !Task.isCancelled {
            do {
                let (request, keepAlive, rest) = try await readRequest(leftover: pending)
                guard let (response, watched) = await respond(to: request) else { return }
                pending = rest + watched
                if let stream = response.stream, request.method != "HEAD" {
                    try await write(response, headOnly: true, close: true, gzip: false, length: false)
                    await serve(stream)
                    return
                }
                let wantsGzip = request.headers.hasToken("gzip", in: "Accept-Encoding")
                try await write(response, headOnly: request.method == "HEAD", close: !keepAlive, gzip: wantsGzip)
                if !keepAlive { return }
            } catch Failure.answer(let status) {
                try? await write(.text("\(HTTPServerResponse.reason(status))\n", status: status), headOnly: false, close: true, gzip: false)
                return
            } catch {
                return
            }
        }
    }

    // MARK: Reading

    /// Reads one whole request: the idle timeout until its first byte, the request timeout from
    /// there to its last.
    private func readRequest(leftover: [UInt8]) async throws -> (HTTPServerRequest, Bool, [UInt8]) {
        var parser = HTTPRequestParser(limits: limits.http)
        var body: [UInt8] = []
        var input = leftover
        var requestDeadline: ContinuousClock.Instant? = leftover.isEmpty ? nil : .now + limits.requestTimeout
        let idleDeadline = ContinuousClock.now + limits.idleTimeout
        var sentContinue = false
        while true {
            if !input.isEmpty {
                let step: HTTPRequestParser.Step
                do {
                    step = try parser.feed(input)
                } catch {
                    throw Failure.answer(error.suggestedStatus)
                }
                for event in step.events {
                    if case .body(let piece) = event { body += piece }
                }
                input.removeFirst(step.consumed)
                if parser.isComplete { break }
                if !sentContinue, let head = parser.head, head.headers.hasToken("100-continue", in: "Expect") {
                    // The client waits for this before it sends the body.
                    sentContinue = true
                    try await transport.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), until: .now + limits.writeTimeout)
                }
            }
            let deadline = requestDeadline ?? idleDeadline
            let chunk: [UInt8]
            do {
                chunk = try await transport.read(until: deadline)
            } catch TransportError.timedOut {
                throw parser.hasStarted ? Failure.answer(408) : Failure.close
            }
            if chunk.isEmpty { throw Failure.close }
            if requestDeadline == nil { requestDeadline = .now + limits.requestTimeout }
            input = chunk
        }
        guard let head = parser.head else { throw Failure.answer(400) }
        let request = HTTPServerRequest(
            method: head.method, path: head.path, queryItems: head.rawQuery.map(QueryString.parse) ?? [],
            headers: head.headers, body: try decode(body, headers: head.headers))
        return (request, head.keepsAlive, input)
    }

    /// Undoes a gzip or zstd request body, within the body limit: a bomb is a 413 like any large
    /// body. Any other coding, or two, is a 415 (RFC 9110 15.5.16).
    private func decode(_ body: [UInt8], headers: HTTPHeaders) throws(Failure) -> [UInt8] {
        let codings = headers.tokens("Content-Encoding").filter { !HTTPHeaders.sameName($0, "identity") }
        guard !codings.isEmpty else { return body }
        guard codings.count == 1 else { throw .answer(415) }
        let maxOutput = limits.http.maxBodyBytes
        if HTTPHeaders.sameName(codings[0], "gzip") {
            do {
                return try Gzip.decompress(body, maxOutput: maxOutput)
            } catch .tooLarge {
                throw .answer(413)
            } catch {
                throw .answer(400)
            }
        }
        guard HTTPHeaders.sameName(codings[0], "zstd") else { throw .answer(415) }
        do {
            return try Zstd.decompress(body, maxOutput: maxOutput)
        } catch .tooLarge {
            throw .answer(413)
        } catch {
            // A window over RFC 9659's is the sender's mistake, as damaged data is.
            throw .answer(400)
        }
    }

    // MARK: Handling

    private enum HandlerOutcome: Sendable {
        case response(HTTPServerResponse)
        case clientGone
        case watchStopped([UInt8])
    }

    /// Runs the handler of a request that may be held while watching the socket: if the client
    /// closes the connection, the handler is cancelled (a held long poll ends at once) and nil is
    /// returned. Bytes that arrive meanwhile (a pipelined request) are returned with the response.
    /// Any other request's handler runs here, in the connection's task (`HTTPRouter.mayHold`).
    private func respond(to request: HTTPServerRequest) async -> (HTTPServerResponse, [UInt8])? {
        guard router.mayHold(request) else { return (await router.handle(request), []) }
        let router = router
        let transport = transport
        let watchLimit = limits.http.maxHeaderBytes
        return await withTaskGroup(of: HandlerOutcome.self) { group in
            group.addTask { .response(await router.handle(request)) }
            group.addTask { await Self.watch(transport, limit: watchLimit) }
            var response: HTTPServerResponse?
            var watched: [UInt8] = []
            var gone = false
            for await outcome in group {
                switch outcome {
                case .response(let value):
                    response = value
                    group.cancelAll()
                case .clientGone:
                    gone = true
                    group.cancelAll()
                case .watchStopped(let bytes):
                    watched = bytes
                }
            }
            guard !gone, let response else { return nil }
            return (response, watched)
        }
    }

    /// Reads while the handler runs, until the peer closes (the client is gone) or the task is
    /// cancelled (the handler answered). Stops reading, without giving up, once `limit` bytes
    /// have come: a client may pipeline, not flood.
    private static func watch(_ transport: Transport, limit: Int) async -> HandlerOutcome {
        var received: [UInt8] = []
        do {
            while received.count < limit {
                let chunk = try await transport.read(maxCount: limit - received.count, until: .now + .seconds(86_400 * 365))
                if chunk.isEmpty { return .clientGone }
                received += chunk
            }
            while !Task.isCancelled { try await Task.sleep(for: .seconds(3600)) }
            return .watchStopped(received)
        } catch is CancellationError {
            return .watchStopped(received)
        } catch {
            return .clientGone
        }
    }

    // MARK: Writing

    /// Writes what the stream produces until it ends, or until the client goes or stops reading
    /// for longer than the write timeout.
    private func serve(_ stream: HTTPResponseStream) async {
        let transport = transport
        let writeTimeout = limits.writeTimeout
        let watchLimit = limits.http.maxHeaderBytes
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await stream.produce { bytes in try await transport.write(bytes, until: .now + writeTimeout) }
            }
            group.addTask { _ = await Self.watch(transport, limit: watchLimit) }
            await group.next()
            group.cancelAll()
        }
    }

    private func write(_ response: HTTPServerResponse, headOnly: Bool, close: Bool, gzip: Bool, length: Bool = true) async throws {
        var body = response.body
        var headers = response.headers
        for name in ["Content-Length", "Transfer-Encoding", "Connection"] { headers.remove(name) }
        // Compressing a few hundred bytes costs more than it saves.
        if gzip, body.count >= 1024, !headers.contains("Content-Encoding"), let packed = try? Gzip.compress(body) {
            body = packed
            headers.add("Content-Encoding", "gzip")
            headers.add("Vary", "Accept-Encoding")
        }
        var head = "HTTP/1.1 \(response.status) \(HTTPServerResponse.reason(response.status))\r\n"
        if length, response.status != 204 && response.status != 304 { head += "Content-Length: \(body.count)\r\n" }
        head += close ? "Connection: close\r\n" : "Connection: keep-alive\r\n"
        for (name, value) in headers
        where HTTPSyntax.isToken(name) && HTTPSyntax.isFieldValue(value) {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        let withBody = headOnly || response.status == 204 || response.status == 304 ? [] : body
        try await transport.write(Array(head.utf8) + withBody, until: .now + limits.writeTimeout)
    }
}
