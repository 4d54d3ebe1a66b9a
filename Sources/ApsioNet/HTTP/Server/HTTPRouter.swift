/// Routes by method and exact path. An unknown path is 404; a known path with another method is
/// 405 with `Allow` (spec 16.4 names both). A prefix route takes every path under it that has no
/// exact route, whatever the method, for handlers that read parameters from the path themselves.
package struct HTTPRouter: Sendable {
    package typealias Handler = @Sendable (HTTPServerRequest) async -> HTTPServerResponse

    private var routes: [String: [String: Handler]] = [:]
    private var prefixes: [(prefix: String, handler: Handler)] = []

    /// Whether a request's handler may hold it (a long poll). Such a handler runs beside a watch
    /// of the socket, which cancels it as soon as the client leaves, and keeps what a pipelining
    /// client sends meanwhile. Any other runs in the connection's own task: a request then costs
    /// no task of its own and two thread wake-ups fewer, and a client that left is found when its
    /// answer is written. Every request may hold unless the server's owner says which do.
    package var mayHold: @Sendable (HTTPServerRequest) -> Bool = { _ in true }

    package init() {}

    package mutating func add(_ method: String, _ path: String, _ handler: @escaping Handler) {
        routes[path, default: [:]][method] = handler
    }

    /// Routes every path that starts with `prefix` (which should end with `/`) and has no exact
    /// route to `handler`, for any method: the handler answers 404 and 405 itself. The longest
    /// matching prefix wins.
    package mutating func addPrefix(_ prefix: String, _ handler: @escaping Handler) {
        prefixes.append((prefix: prefix, handler: handler))
        prefixes.sort { $0.prefix.utf8.count > $1.prefix.utf8.count }
    }

    package func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let byMethod = routes[request.path] else {
            if let route = prefixes.first(where: { request.path.hasPrefix($0.prefix) }) { return await route.handler(request) }
            return .text("no such route\n", status: 404)
        }
        guard let handler = byMethod[request.method] else {
            var response = HTTPServerResponse.text("method not allowed\n", status: 405)
            response.headers.set("Allow", byMethod.keys.sorted().joined(separator: ", "))
            return response
        }
        return await handler(request)
    }
}
