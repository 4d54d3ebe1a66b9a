package import ApsioJSON
package import ApsioNet
import Foundation
import Testing

/// The development backend's HTTP API over loopback, as a device and a person call it: the client
/// of the backend's tests in process and of those of the built `apsio-backend`.
package struct BackendHTTPClient {
    /// The test process shares two cores with other suites that block threads while their helper
    /// processes run: deadlines here are generous, so only a real failure fails a test.
    package static let patient = HTTPClient.Options(
        limits: HTTPLimits(connectTimeout: .seconds(60), exchangeTimeout: .seconds(120)))

    package let http: HTTPClient
    package let endpoint: HTTPEndpoint

    package init(port: Int) throws {
        http = try HTTPClient(options: BackendHTTPClient.patient)
        endpoint = try HTTPEndpoint(scheme: .http, host: "127.0.0.1", port: port)
    }

    package func send(_ request: HTTPRequest) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        let response = try await http.send(request, to: endpoint)
        return (response.status, Self.json(response.body), response.headers)
    }

    package func post(_ path: String, _ body: JSONValue, headers: HTTPHeaders = [:]) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        try await send(.postJSON(path, json: JSONWriter.encode(body), headers: headers))
    }

    package func device(_ path: String, _ body: JSONValue, token: String? = nil, key: String) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        var headers: HTTPHeaders = ["Apsio-App-Key": key]
        if let token { headers.add("Apsio-Live-Token", token) }
        return try await post(path, body, headers: headers)
    }

    package func signIn(_ user: String, _ password: String) async throws -> String {
        let answer = try await post("/api/login", .object(["user": .string(user), "password": .string(password)]))
        try #require(answer.status == 200)
        return try #require(answer.body["token"]?.stringValue)
    }

    package func api(_ method: String, _ path: String, bearer: String?, body: JSONValue? = nil, headers: HTTPHeaders = [:]) async throws -> (status: Int, body: JSONValue, headers: HTTPHeaders) {
        var headers = headers
        if let bearer { headers.add("Authorization", "Bearer \(bearer)") }
        if body != nil { headers.add("Content-Type", "application/json") }
        return try await send(HTTPRequest(method: method, path: path, headers: headers, body: body.map(JSONWriter.encode) ?? []))
    }

    /// A body as JSON, null when empty or not JSON.
    private static func json(_ bytes: [UInt8]?) -> JSONValue {
        guard let bytes, !bytes.isEmpty else { return .null }
        return (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) ?? .null
    }
}
