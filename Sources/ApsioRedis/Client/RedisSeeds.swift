/// The Redis an operator names with `--redis` or `Redis=`: one endpoint (one server, or a node of
/// a Redis Cluster), or several nodes of one cluster separated by commas, so that a backend
/// started while one of them is down still finds the cluster through another.
package struct RedisSeeds: Sendable, Hashable, CustomStringConvertible {
    package let endpoints: [RedisEndpoint]

    package init(_ endpoint: RedisEndpoint) { endpoints = [endpoint] }

    package init(parsing text: String) throws(RedisEndpoint.Invalid) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        var endpoints: [RedisEndpoint] = []
        for part in parts {
            guard !part.isEmpty else { throw RedisEndpoint.Invalid(text: text, reason: "an empty endpoint between commas") }
            let endpoint = try RedisEndpoint(parsing: part)
            if parts.count > 1, case .unix = endpoint.address {
                throw RedisEndpoint.Invalid(text: text, reason: "several endpoints name nodes of one Redis Cluster, each redis://HOST:PORT")
            }
            if !endpoints.contains(endpoint) { endpoints.append(endpoint) }
        }
        self.endpoints = endpoints
    }

    package var description: String { endpoints.map(\.description).joined(separator: ",") }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
