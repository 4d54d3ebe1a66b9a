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
    init(port: Int) throws {
        client = try HTTPClient(
            options: HTTPClient.Options(limits: HTTPLimits(connectTimeout: .seconds(60), exchangeTimeout: .seconds(120))))
        endpoint = try HTTPEndpoint(scheme: .http, host: "127.0.0.1", port: port)
    }

    /// The status and the JSON body (null when it is not JSON).
    func call(_ method: String, _ path: String, _ bearer: String?, _ body: JSONValue? = nil) async throws -> (Int, JSONValue) {
        var headers: HTTPHeaders = [:]
        if let bearer { headers.add("Authorization", "Bearer \(bearer)") }
        if body != nil { headers.add("Content-Type", "application/json") }
        let response = try await client.send(
            HTTPRequest(method: method, path: path, headers: headers, body: body.map(JSONWriter.encode) ?? []), to: endpoint)
        return (response.status, JSONValueEncoding.decode(response.body) ?? .null)
    }
}
