import ApsioNet

/// The viewer's pages: `/` is the page, `/assets/NAME` its scripts and styles. Every page answer
/// carries a Content-Security-Policy that allows no inline script and no other origin.
extension BackendServer {
    static func addViewerPages(_ router: inout HTTPRouter) {
        router.add("GET", "/") { request in
            page(ViewerAssets.indexName, request)
        }
        router.add("GET", "/favicon.ico") { request in
            page("favicon.svg", request)
        }
        router.addPrefix("/assets/") { request in
            guard request.method == "GET" else {
                var response = HTTPServerResponse.text("method not allowed\n", status: 405)
                response.headers.set("Allow", "GET")
                return response
            }
            let name = String(request.path.dropFirst("/assets/".count))
            // The index is served at `/` only, so a page has one address.
            guard name != ViewerAssets.indexName else { return .text("no such asset\n", status: 404) }
            return page(name, request)
        }
    }

    private static func page(_ name: String, _ request: HTTPServerRequest) -> HTTPServerResponse {
        guard let asset = ViewerAssets.all[name] else { return .text("no such asset\n", status: 404) }
        var headers: HTTPHeaders = [:]
        headers.set("Content-Security-Policy", ViewerAssets.contentSecurityPolicy)
        headers.set("X-Content-Type-Options", "nosniff")
        headers.set("Referrer-Policy", "no-referrer")
        headers.set("X-Frame-Options", "DENY")
        // Revalidated on every load: cheap with the ETag, and never a stale script after an upgrade.
        headers.set("Cache-Control", "no-cache")
        headers.set("ETag", asset.etag)
        if BackendPolicy.matches(ifNoneMatch: request.headers["If-None-Match"], etag: asset.etag) {
            return HTTPServerResponse(status: 304, headers: headers)
        }
        headers.set("Content-Type", asset.contentType)
        return HTTPServerResponse(status: 200, headers: headers, body: asset.body)
    }
}
