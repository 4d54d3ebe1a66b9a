/// Routes by method and exact path. An unknown path is 404; a known path with another method is
/// 405 with `Allow` (spec 16.4 names both).
public struct HTTPRouter: Sendable {
    public typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

    private var routes: [String: [String: Handler]] = [:]

    public init() {}

    public mutating func add(_ method: String, _ path: String, _ handler: @escaping Handler) {
        routes[path, default: [:]][method] = handler
    }

    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let byMethod = routes[request.path] else { return .text("no such route\n", status: 404) }
        guard let handler = byMethod[request.method] else {
            var response = HTTPServerResponse.text("method not allowed\n", status: 405)
            response.headers.set("Allow", byMethod.keys.sorted().joined(separator: ", "))
            return response
        }
        return await handler(request)
    }
}
