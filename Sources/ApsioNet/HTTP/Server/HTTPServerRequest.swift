/// A request as a handler sees it: the body is complete, and gzip is already undone.
public struct HTTPServerRequest: Sendable {
    public var method: String
    /// The path without the query, as sent (not percent-decoded).
    public var path: String
    public var queryItems: [(name: String, value: String)]
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(
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
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}
