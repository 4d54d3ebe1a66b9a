package import ApsioCore
package import ApsioJSON
package import ApsioNet
import Foundation
import Glibc
import Synchronization
import ApsioLive
import ApsioWire

/// A backend on 127.0.0.1 that a daemon talks to as to a real one, over a real `HTTPServer`: the
/// policy it is given (`GET /v1/policy`), an ingest sink that keeps every record (`POST /v1/logs`),
/// and the live channel answered by a `ScriptedLiveBackend`. What the script records is what
/// arrived over the wire: the server undid the gzip or zstd, the token came in its header, a held `next`
/// is a handler waiting on the script, cancelled when the client closes.
package final class ScriptedBackendServer: Sendable {
    package let script: ScriptedLiveBackend
    package let server: HTTPServer
    package let port: Int

    /// What `/v1/logs` received, in order, and how the sink answers.
    package struct Sink: Sendable {
        /// Each request's records, whether or not it was accepted.
        package var requests: [[SentRecord]] = []
        /// Answers for the next requests, then 200.
        package var script: [Int] = []
        /// The encoding of every request, those refused included, in order.
        package var encodings: [OTLPEncoding] = []
        /// The `Content-Encoding` of every request, those refused included, in order.
        package var compressions: [String] = []
        /// Answered with this status (400 or 415) when zstd-compressed, before anything else: a
        /// receiver that does not read zstd. Such a request is not among `requests`.
        package var refusedZstd: Int?
        /// Answered 415 before anything else (a receiver that reads the other encoding only);
        /// such a request is not among `requests`.
        package var refused: OTLPEncoding?
        /// Said with the next accepted batches, one each, in the batch's encoding: how many of its
        /// records the sink did not keep, and why (OTLP's partial success).
        package var partialSuccesses: [(rejected: Int, message: String)] = []
    }

    private final class State: Sendable {
        let policy = Mutex<JSONValue?>(nil)
        let policyRequests = Atomic<Int>(0)
        let sink = Mutex(Sink())
        let appKeys = Mutex<[String?]>([])
        /// Every request's path and headers, in order.
        let headers = Mutex<[(path: String, headers: HTTPHeaders)]>([])

        func seen(_ request: HTTPServerRequest) {
            appKeys.withLock { $0.append(request.headers["Apsio-App-Key"]) }
            headers.withLock { $0.append((request.path, request.headers)) }
        }
        /// `(path, bytes as sent)` of every live body: what 16.3 counts.
        let liveWire = Mutex<[(String, Int)]>([])
        /// Called with the number of the `/v1/logs` request (from 1) before it is answered.
        let onLogs = Mutex<(@Sendable (Int) -> Void)?>(nil)
    }

    private let state = State()

    package init(script: ScriptedLiveBackend = ScriptedLiveBackend()) async throws {
        self.script = script
        let state = self.state
        var router = HTTPRouter()
        for (method, path) in [
            ("POST", "/v1/live/hello"), ("GET", "/v1/live/next"), ("POST", "/v1/live/frames"), ("POST", "/v1/live/results"),
        ] {
            router.add(method, path) { request in
                state.seen(request)
                if !request.body.isEmpty {
                    state.liveWire.withLock { $0.append((request.path, Self.wireBytes(request))) }
                }
                return await Self.answer(request, from: script)
            }
        }
        router.add("GET", "/v1/policy") { request in
            state.seen(request)
            state.policyRequests.add(1, ordering: .relaxed)
            defer { script.changes.notify() }
            guard let policy = state.policy.withLock({ $0 }) else { return HTTPServerResponse(status: 503) }
            return .json(JSONWriter.encode(policy))
        }
        router.add("POST", "/v1/logs") { request in
            state.seen(request)
            let encoding: OTLPEncoding =
                request.headers["Content-Type"]?.lowercased().hasPrefix(OTLPEncoding.protobuf.contentType) == true ? .protobuf : .json
            let compression = request.headers["Content-Encoding"] ?? "identity"
            let refusal = state.sink.withLock { sink -> Int? in
                sink.encodings.append(encoding)
                sink.compressions.append(compression)
                if compression == "zstd", let status = sink.refusedZstd { return status }
                return sink.refused == encoding ? 415 : nil
            }
            if let refusal {
                script.changes.notify()
                return HTTPServerResponse(status: refusal)
            }
            // Either encoding is read as the same request (apsio-backend's sink reads protobuf so).
            let json = encoding == .protobuf ? (try? OTLPProtobufLogs.json(from: request.body)) : request.body
            let records = json.flatMap(JSONValueEncoding.decode).map(SentRecord.all(in:)) ?? []
            let (number, status, partial) = state.sink.withLock { sink -> (Int, Int, (rejected: Int, message: String)?) in
                sink.requests.append(records)
                let status = sink.script.isEmpty ? 200 : sink.script.removeFirst()
                let partial = status == 200 && !sink.partialSuccesses.isEmpty ? sink.partialSuccesses.removeFirst() : nil
                return (sink.requests.count, status, partial)
            }
            state.onLogs.withLock { $0 }?(number)
            script.changes.notify()
            guard let partial else { return HTTPServerResponse(status: status) }
            return Self.partialSuccess(partial, encoding: encoding)
        }
        server = HTTPServer(
            bind: "127.0.0.1", port: 0, limits: HTTPServerLimits(http: HTTPLimits(maxBodyBytes: 16 << 20)), router: router)
        port = try await server.start()
    }

    /// An `ExportLogsServiceResponse` with its partial success, as a receiver answers in the
    /// request's encoding.
    static func partialSuccess(_ partial: (rejected: Int, message: String), encoding: OTLPEncoding) -> HTTPServerResponse {
        switch encoding {
        case .json:
            return .json(JSONWriter.encode(.object([
                "partialSuccess": .object([
                    "rejectedLogRecords": .string(String(partial.rejected)), "errorMessage": .string(partial.message),
                ])
            ])))
        case .protobuf:
            func varint(_ value: Int) -> [UInt8] {
                var value = UInt64(value)
                var out: [UInt8] = []
                while value >= 0x80 {
                    out.append(UInt8(value & 0x7f) | 0x80)
                    value >>= 7
                }
                return out + [UInt8(value)]
            }
            let message = Array(partial.message.utf8)
            let inner = [0x08] + varint(partial.rejected) + [0x12] + varint(message.count) + message
            var response = HTTPServerResponse(status: 200, body: [0x0a] + varint(inner.count) + inner)
            response.headers.set("Content-Type", OTLPEncoding.protobuf.contentType)
            return response
        }
    }

    package var origin: String { "http://127.0.0.1:\(port)" }

    package func stop() async { await server.stop() }

    // MARK: The policy

    /// What `GET /v1/policy` answers from now on; nil answers 503.
    package func setPolicy(_ policy: JSONValue?) { state.policy.withLock { $0 = policy } }
    package var policyRequests: Int { state.policyRequests.load(ordering: .relaxed) }

    // MARK: The sink

    package var sink: Sink { state.sink.withLock { $0 } }
    /// Every record received, accepted or not, in order.
    package var records: [SentRecord] { sink.requests.flatMap { $0 } }
    package var uniqueUIDs: Set<String> { Set(records.compactMap(\.uid)) }
    package func answerLogs(_ statuses: [Int]) { state.sink.withLock { $0.script += statuses } }
    /// 415 to every request in `encoding` from now on; nil reads both again.
    package func refuse(_ encoding: OTLPEncoding?) { state.sink.withLock { $0.refused = encoding } }
    /// `status` (400 or 415) to every zstd-compressed request from now on; nil reads zstd again.
    package func refuseZstd(with status: Int?) { state.sink.withLock { $0.refusedZstd = status } }
    package func acceptPartially(rejected: Int, message: String) {
        state.sink.withLock { $0.partialSuccesses.append((rejected, message)) }
    }
    /// 200 again from the next request on. Returns how many requests came before: the ones after
    /// are accepted.
    @discardableResult
    package func clearLogsScript() -> Int {
        state.sink.withLock { sink in
            sink.script = []
            return sink.requests.count
        }
    }
    /// `body` runs in the handler of each `/v1/logs` request, with its number, before the answer.
    package func onLogs(_ body: (@Sendable (Int) -> Void)?) { state.onLogs.withLock { $0 = body } }

    // MARK: What came

    /// `Apsio-App-Key` of every request that arrived, in order.
    package var appKeysSeen: [String?] { state.appKeys.withLock { $0 } }
    /// Every request's path and headers, in order.
    package var headersSeen: [(path: String, headers: HTTPHeaders)] { state.headers.withLock { $0 } }
    /// The bytes of every `frames` and `results` body as sent (compressed), in order.
    package var liveBodyBytes: [(path: String, bytes: Int)] { state.liveWire.withLock { $0 }.map { (path: $0.0, bytes: $0.1) } }

    package static func wireBytes(_ request: HTTPServerRequest) -> Int {
        request.headers["Content-Length"].flatMap { Int($0) } ?? request.body.count
    }

    private static func answer(_ request: HTTPServerRequest, from script: ScriptedLiveBackend) async -> HTTPServerResponse {
        let live = LiveHTTPRequest(
            method: request.method == "GET" ? .get : .post, path: request.path + query(request.queryItems),
            gzipBody: nil, token: request.headers["Apsio-Live-Token"].flatMap { DeviceToken($0) })
        let body = request.body.isEmpty ? nil : JSONValueEncoding.decode(request.body)
        let response: LiveResponse
        do {
            response = try await script.answer(live, body: body)
        } catch {
            // The client went away; nothing is written on a closed connection.
            return HTTPServerResponse(status: 503)
        }
        switch response {
        case .status(let status, let body, let retryAfter):
            var headers: HTTPHeaders = [:]
            if let retryAfter { headers.set("Retry-After", "\(retryAfter.components.seconds)") }
            guard !body.isEmpty else { return HTTPServerResponse(status: status, headers: headers) }
            return .json(body, status: status, headers: headers)
        case .failed:
            // A socket cannot be made to fail on cue here; the channel takes a 5xx as it takes a
            // failure ("treated as a 5xx is").
            return HTTPServerResponse(status: 503)
        }
    }

    private static func query(_ items: [(name: String, value: String)]) -> String {
        guard !items.isEmpty else { return "" }
        return "?" + items.map { percentEncoded($0.name) + "=" + percentEncoded($0.value) }.joined(separator: "&")
    }

    private static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let unreserved = (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2d || byte == 0x2e || byte == 0x5f || byte == 0x7e
            if unreserved {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count < 2 ? "0" + hex : hex)
            }
        }
        return out
    }
}
