import ApsioCore
import ApsioNet

/// `GET /api/fleet/events`: the fleet page's device list as server-sent events. The first event,
/// `snapshot`, lists every device present; then `change` events carry only the devices that
/// appeared or changed (`upsert`) and those that went (`remove`), so a page watching a thousand
/// boxes is sent what moved, not the list each time. Every page of an instance follows one
/// `FleetListFeed`, which looks at the hub's list once a second, from whichever instance it is:
/// the list is the shared state's, so every instance tells the same story.
extension BackendServer {
    /// How long one event stream lasts; the browser's EventSource connects again by itself.
    static let fleetEventsLifetime: Duration = .seconds(3600)
    static let fleetEventsInterval: Duration = .seconds(1)
    /// A comment this often keeps proxies from closing a quiet stream.
    static let fleetEventsKeepalive: Duration = .seconds(15)
    /// A page's sign-in is looked at again this often: one that ended ends the stream.
    static let fleetEventsSignInCheck: Duration = .seconds(10)

    static func addFleetEventsRoute(_ router: inout HTTPRouter, service: any HubService) {
        let feed = FleetListFeed(service: service, interval: fleetEventsInterval)
        router.add("GET", "/api/fleet/events") { request in
            if let refusal = serviceCredentialRefusal(request, service: service) { return refusal }
            guard let token = signInToken(request) else { return signInFirst }
            switch await service.viewer(token: token) {
            case .failure(let unavailable): return response(unavailable.reply)
            case .success(nil): return signInFirst
            case .success: break
            }
            return .eventStream(HTTPResponseStream { send in
                await fleetEvents(token: token, service: service, feed: feed, send: send)
            })
        }
    }

    private static var signInFirst: HTTPServerResponse {
        var headers: HTTPHeaders = [:]
        headers.set("WWW-Authenticate", "Bearer")
        return response(.error(401, "sign_in", "sign in first: POST /api/login"), headers: headers)
    }

    private static func fleetEvents(
        token: String, service: any HubService, feed: FleetListFeed, send: @Sendable ([UInt8]) async throws -> Void
    ) async {
        let (id, items) = await feed.subscribe()
        let started = ContinuousClock.now
        var lastSent = started
        var lastSignInCheck = started
        do {
            try await send(Array("retry: 2000\n\n".utf8))
            stream: for await item in items {
                switch item {
                case .snapshot(let list): try await send(event("snapshot", list))
                case .change(let change): try await send(event("change", change))
                case .degraded(let reply): try await send(event("degraded", reply))
                case .recovered: try await send(event("recovered", Array("{}".utf8)))
                case .tick:
                    let now = ContinuousClock.now
                    if now >= started + fleetEventsLifetime { break stream }
                    if now >= lastSignInCheck + fleetEventsSignInCheck {
                        lastSignInCheck = now
                        if case .success(nil) = await service.viewer(token: token) {
                            try await send(event("signed_out", Array("{}".utf8)))
                            break stream
                        }
                    }
                    if now >= lastSent + fleetEventsKeepalive { try await send(Array(": keepalive\n\n".utf8)) } else { continue }
                }
                lastSent = .now
            }
        } catch {
            // The client went, or the stream was cancelled.
        }
        await feed.unsubscribe(id)
    }

    private static func event(_ name: String, _ data: [UInt8]) -> [UInt8] {
        Array("event: \(name)\ndata: ".utf8) + data + Array("\n\n".utf8)
    }
}
