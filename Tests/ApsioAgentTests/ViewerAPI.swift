import ApsioAgent
import ApsioCore
import ApsioNet
import ApsioLive

/// A person's side of the development backend's viewer API over loopback, for end-to-end tests:
/// sign in, list devices, watch, send commands, read the stream.
struct ViewerAPI: Sendable {
    let client: HTTPClient
    let endpoint: HTTPEndpoint

    /// Patient limits: a loaded machine can take a while to answer, and that is not what is tested.
    /// `caFile`: reach the backend over https (through nginx), trusting that CA alone.
    init(port: Int, https caFile: String? = nil) throws {
        client = try HTTPClient(
            options: HTTPClient.Options(
                caFile: caFile, limits: HTTPLimits(connectTimeout: .seconds(60), exchangeTimeout: .seconds(120))))
        endpoint = try HTTPEndpoint(scheme: caFile == nil ? .http : .https, host: "127.0.0.1", port: port)
    }

    /// The status and the JSON body (null when it is not JSON).
    func call(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
        let response = try await exchange(method, path, bearer, body)
        return (response.status, JSONValueEncoding.decode(response.body) ?? .null)
    }

    /// The whole answer, headers included.
    func exchange(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> HTTPResponse {
        var headers: HTTPHeaders = [:]
        if let bearer { headers.add("Authorization", "Bearer \(bearer)") }
        if body != nil { headers.add("Content-Type", "application/json") }
        return try await client.send(
            HTTPRequest(method: method, path: path, headers: headers, body: body.map(JSONWriter.encode) ?? []), to: endpoint)
    }
}
