import ApsioCore
import ApsioNet

/// `GET /api/fleet/events`: the fleet page's device list as server-sent events. The first event,
/// `snapshot`, lists every device present; then `change` events carry only the devices that
/// appeared or changed (`upsert`) and those that went (`remove`), so a page watching a thousand
/// boxes is sent what moved, not the list each time.
///
/// Each connection looks at the hub's list once a second, from whichever instance it reached:
/// the list is the shared state's, so every instance tells the same story.
extension DevBackend {
    /// How long one event stream lasts; the browser's EventSource connects again by itself.
    static let fleetEventsLifetime: Duration = .seconds(3600)
    static let fleetEventsInterval: Duration = .seconds(1)
    /// A comment this often keeps proxies from closing a quiet stream.
    static let fleetEventsKeepalive: Duration = .seconds(15)

    static func addFleetEventsRoute(_ router: inout HTTPRouter, service: any HubService) {
        router.add("GET", "/api/fleet/events") { request in
            if let refusal = serviceCredentialRefusal(request, service: service) { return refusal }
            guard let token = signInToken(request) else { return signInFirst }
            switch await service.viewer(token: token) {
            case .failure(let unavailable): return response(unavailable.reply)
            case .success(nil): return signInFirst
            case .success: break
            }
            return .eventStream(HTTPResponseStream { send in
                await fleetEvents(token: token, service: service, send: send)
            })
        }
    }

    private static var signInFirst: HTTPServerResponse {
        var headers: HTTPHeaders = [:]
        headers.set("WWW-Authenticate", "Bearer")
        return response(.error(401, "sign_in", "sign in first: POST /api/login"), headers: headers)
    }

    private static func fleetEvents(
        token: String, service: any HubService, send: @Sendable ([UInt8]) async throws -> Void
    ) async {
        let started = ContinuousClock.now
        var lastSent = started
        var known: [String: [UInt8]]?
        var degraded = false
        do {
            try await send(Array("retry: 2000\n\n".utf8))
            while ContinuousClock.now < started + fleetEventsLifetime {
                // A sign-in that ended (signed out, expired) ends the stream too.
                guard case .success(.some) = await service.viewer(token: token) else {
                    try await send(event("signed_out", Array("{}".utf8)))
                    return
                }
                let reply = await service.devices()
                if reply.status == 200, let json = reply.json, let devices = JSONBody.parse(json)?["devices"]?.arrayValue {
                    var current: [String: [UInt8]] = [:]
                    var order: [String] = []
                    for device in devices {
                        guard let app = device["app"]?.stringValue, let install = device["install"]?.stringValue else { continue }
                        let key = app + "/" + install
                        current[key] = JSONWriter.encode(device)
                        order.append(key)
                    }
                    if let previous = known {
                        let upserts = order.filter { previous[$0] != current[$0] }
                        let removed = previous.keys.filter { current[$0] == nil }.sorted()
                        if !upserts.isEmpty || !removed.isEmpty {
                            try await send(event("change", change(upserts.compactMap { current[$0] }, removed: removed)))
                            lastSent = .now
                        }
                    } else {
                        try await send(event("snapshot", list(order.compactMap { current[$0] })))
                        lastSent = .now
                    }
                    known = current
                    if degraded { try await send(event("recovered", Array("{}".utf8))) }
                    degraded = false
                } else if !degraded {
                    // The state cannot be read now: the page says the backend is degraded, and
                    // the list it has stays until the next answer.
                    degraded = true
                    try await send(event("degraded", reply.json ?? Array("{}".utf8)))
                    lastSent = .now
                }
                if ContinuousClock.now >= lastSent + fleetEventsKeepalive {
                    try await send(Array(": keepalive\n\n".utf8))
                    lastSent = .now
                }
                try await Task.sleep(for: fleetEventsInterval)
            }
        } catch {
            return  // the client went, or the stream was cancelled
        }
    }

    private static func event(_ name: String, _ data: [UInt8]) -> [UInt8] {
        Array("event: \(name)\ndata: ".utf8) + data + Array("\n\n".utf8)
    }

    private static func list(_ devices: [[UInt8]]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("devices")
        writer.beginArray()
        for device in devices { writer.raw(device) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private static func change(_ upserts: [[UInt8]], removed: [String]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("upsert")
        writer.beginArray()
        for device in upserts { writer.raw(device) }
        writer.endArray()
        writer.key("remove")
        writer.beginArray()
        for key in removed {
            let slash = key.firstIndex(of: "/")!
            writer.beginObject()
            writer.key("app"); writer.string(String(key[..<slash]))
            writer.key("install"); writer.string(String(key[key.index(after: slash)...]))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
