/// A request as a handler sees it: the body is complete, and gzip is already undone.
package struct HTTPServerRequest: Sendable {
    package var method: String
    /// The path without the query, as sent (not percent-decoded).
    package var path: String
    package var queryItems: [(name: String, value: String)]
    package var headers: HTTPHeaders
    package var body: [UInt8]

    package init(
        method: String, path: String, queryItems: [(name: String, value: String)] = [], headers: HTTPHeaders = [:],
        body: [UInt8] = []
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
    }

    /// The first value of query parameter `name`, decoded.
    package func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
