import ApsioNet
import Testing

@Suite struct HTTPRouterTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.add("GET", "/api/devices") { _ in .text("list") }
        router.addPrefix("/api/") { request in .text("api \(request.method) \(request.path)") }
        router.addPrefix("/api/devices/") { request in .text("device \(request.method) \(request.path)") }
        return router
    }

    static func body(_ response: HTTPServerResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func anExactRouteWinsOverAPrefix() async {
        let response = await Self.router().handle(HTTPServerRequest(method: "GET", path: "/api/devices"))
        #expect(Self.body(response) == "list")
    }

    @Test func theLongestPrefixTakesEveryMethodUnderIt() async {
        let router = Self.router()
        let device = await router.handle(HTTPServerRequest(method: "DELETE", path: "/api/devices/abc/watch"))
        #expect(device.status == 200 && Self.body(device) == "device DELETE /api/devices/abc/watch")
        let other = await router.handle(HTTPServerRequest(method: "POST", path: "/api/login"))
        #expect(Self.body(other) == "api POST /api/login")
    }

    @Test func aPathUnderNoPrefixIsStill404() async {
        let response = await Self.router().handle(HTTPServerRequest(method: "GET", path: "/v1/apiary"))
        #expect(response.status == 404)
        // An exact route with another method stays 405, not the prefix's.
        let wrongMethod = await Self.router().handle(HTTPServerRequest(method: "POST", path: "/api/devices"))
        #expect(wrongMethod.status == 405)
    }
}
