import ApsioCore
import ApsioJSON
import ApsioNet

/// `POST /api/streams`: the streams of several devices in one held request. A browser holds at
/// most six connections to a host, so a person watching eight boxes cannot hold eight stream
/// polls; this one is answered as soon as any of the devices has something to say.
///
/// Each device's poll is the single-device stream, run side by side; when the first answers, the
/// others are let go (a held poll given up answers nothing and acknowledges nothing, so their
/// events wait for the next request) and the answer lists what each said: 200 with its events,
/// 204 for one let go, or the device's refusal.
extension BackendServer {
    /// As many boxes as a person watches together.
    static let maxStreamsPerRequest = 8

    static func addStreamsRoute(_ router: inout HTTPRouter, service: any HubService) {
        router.add("POST", "/api/streams") { request in
            guard let body = JSONBody.object(request.body), let items = body["devices"]?.arrayValue, !items.isEmpty,
                items.count <= maxStreamsPerRequest
            else {
                return response(.error(400, "unreadable", "streams takes {\"devices\": [{\"app\", \"install\", \"after\"}, …]}, 1 to \(maxStreamsPerRequest) of them"))
            }
            var wanted: [(app: String, install: String, after: UInt64?)] = []
            for item in items {
                guard let app = item["app"]?.stringValue, let install = item["install"]?.stringValue, !install.isEmpty,
                    install.utf8.count <= 256, !wanted.contains(where: { $0.app == app && $0.install == install })
                else { return response(.error(400, "unreadable", "each device is {\"app\", \"install\"}, once")) }
                let after = item["after"]?.numberValue
                guard after.map({ $0 >= 0 && $0 < 9.0e15 && $0.rounded() == $0 }) ?? true else {
                    return response(.error(400, "unreadable", "after is a sequence number"))
                }
                wanted.append((app, install, after.map { UInt64($0) }))
            }
            return await asViewer(request, service: service) { viewer in
                await streams(wanted, viewer: viewer, service: service)
            }
        }
    }

    private static func streams(
        _ wanted: [(app: String, install: String, after: UInt64?)], viewer: HubViewerIdentity, service: any HubService
    ) async -> HubReply {
        let replies = await withTaskGroup(of: (Int, HubReply).self) { group in
            for (index, device) in wanted.enumerated() {
                group.addTask {
                    (index, await service.stream(viewer, app: device.app, install: device.install, after: device.after))
                }
            }
            // A device refused (not watched, gone) does not end the wait: only one with
            // something to say does, so a page that keeps asking for a refused device is told
            // once per answer, not answered at once in a loop.
            var replies = [HubReply?](repeating: nil, count: wanted.count)
            while let (index, reply) = await group.next() {
                replies[index] = reply
                if reply.status == 200 { break }
            }
            group.cancelAll()
            for await (index, reply) in group { replies[index] = reply }
            return replies
        }
        // Every device refused because the state cannot be reached: the whole request is, so the
        // page backs off as for any 503 instead of asking again at once.
        if let unavailable = replies.first(where: { $0?.status == 503 }) ?? nil,
            replies.allSatisfy({ ($0?.status ?? 204) != 200 && ($0?.status ?? 204) != 204 })
        {
            return unavailable
        }
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("streams")
        writer.beginArray()
        for (device, reply) in zip(wanted, replies) {
            let reply = reply ?? .noContent
            writer.beginObject()
            writer.key("app"); writer.string(device.app)
            writer.key("install"); writer.string(device.install)
            writer.key("status"); writer.int(Int64(reply.status))
            if let json = reply.json, case .object(let members)? = JSONBody.parse(json) {
                for (key, value) in members.sorted(by: { $0.key < $1.key }) {
                    writer.key(key); writer.value(value)
                }
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return .ok(writer.bytes)
    }
}
