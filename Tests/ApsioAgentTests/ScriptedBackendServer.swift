import ApsioAgent
import ApsioCore
import ApsioNet
import Synchronization

/// A `ScriptedLiveBackend` behind a real `HTTPServer` on 127.0.0.1, so the runtime's requests go
/// through `HTTPLiveTransport`, the client and a socket, as in production: what the script
/// records is what arrived over the wire (the server undid the gzip, the token came in its header),
/// and a held `next` is a handler waiting on the script, cancelled when the client closes.
final class LoopbackLiveBackend: Sendable {
    let script: ScriptedLiveBackend
    let server: HTTPServer
    let port: Int
    private final class KeyLog: Sendable {
        let keys = Mutex<[String?]>([])
    }

    private let appKeys = KeyLog()

    init(script: ScriptedLiveBackend) async throws {
        self.script = script
        let appKeys = self.appKeys
        var router = HTTPRouter()
        for (method, path) in [
            ("POST", "/v1/live/hello"), ("GET", "/v1/live/next"), ("POST", "/v1/live/frames"), ("POST", "/v1/live/results"),
        ] {
            router.add(method, path) { request in
                appKeys.keys.withLock { $0.append(request.headers["Apsio-App-Key"]) }
                return await Self.answer(request, from: script)
            }
        }
        server = HTTPServer(bind: "127.0.0.1", port: 0, router: router)
        port = try await server.start()
    }

    var origin: String { "http://127.0.0.1:\(port)" }

    /// `Apsio-App-Key` of every request that arrived, in order.
    var appKeysSeen: [String?] { appKeys.keys.withLock { $0 } }

    func stop() async { await server.stop() }

    private static func answer(_ request: HTTPServerRequest, from script: ScriptedLiveBackend) async -> HTTPServerResponse {
        let live = LiveHTTPRequest(
            method: request.method == "GET" ? .get : .post, path: request.path + query(request.queryItems),
            gzipBody: nil, token: request.headers["Apsio-Live-Token"].flatMap { DeviceToken(.string($0)) })
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
            guard let body else { return HTTPServerResponse(status: status, headers: headers) }
            return .json(JSONWriter.encode(body), status: status, headers: headers)
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
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
