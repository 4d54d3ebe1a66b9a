import ApsioCore
package import ApsioJSON
package import ApsioNet
import ApsioLive
import Synchronization

/// A person's side of the development backend's viewer API over loopback, for end-to-end tests:
/// sign in, list devices, watch, send commands, read the stream.
package struct ViewerAPI: Sendable {
    package let client: HTTPClient
    package let endpoint: HTTPEndpoint

    /// Patient limits: a loaded machine can take a while to answer, and that is not what is tested.
    /// `caFile`: reach the backend over https (through nginx), trusting that CA alone.
    package init(port: Int, https caFile: String? = nil) throws {
        client = try HTTPClient(
            options: HTTPClient.Options(
                caFile: caFile, limits: HTTPLimits(connectTimeout: .seconds(60), exchangeTimeout: .seconds(120))))
        endpoint = try HTTPEndpoint(scheme: caFile == nil ? .http : .https, host: "127.0.0.1", port: port)
    }

    /// The status and the JSON body (null when it is not JSON).
    package func call(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
        let response = try await exchange(method, path, bearer, body)
        return (response.status, JSONValueEncoding.decode(response.body) ?? .null)
    }

    /// The whole answer, headers included.
    package func exchange(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        if let bearer { headers.add("Authorization", "Bearer \(bearer)") }
        if body != nil { headers.add("Content-Type", "application/json") }
        return try await client.send(
            HTTPRequest(method: method, path: path, headers: headers, body: body.map(JSONWriter.encode) ?? []), to: endpoint)
    }
}

/// A person's stream of one device, read poll after poll: every event seen so far, kept, so a
/// test asks whether one has arrived among them.
package final class ViewerStream: Sendable {
    private let api: ViewerAPI
    private let path: String
    private let bearer: String
    private let seen = Mutex<[JSONValue]>([])

    package init(_ api: ViewerAPI, install: String, bearer: String) {
        self.api = api
        path = "/api/devices/\(install)/stream"
        self.bearer = bearer
    }

    /// Polls once (held until there is something to say), and says whether an event seen so far
    /// matches.
    package func contains(_ match: @Sendable (JSONValue) -> Bool) async -> Bool {
        guard let stream = try? await api.call("GET", path, bearer) else { return false }
        let events = seen.withLock { $0 += stream.1["events"]?.arrayValue ?? []; return $0 }
        return events.contains(where: match)
    }
}

