import ApsioCore
import ApsioJSON

/// The device list as the fleet pages of one instance follow it: one look at the hub's list a
/// second, however many pages are open, and to each page what moved since. A page that falls
/// behind (its queue full) is sent the whole list again instead of a change it cannot place.
/// Nothing runs while no page is open.
actor FleetListFeed {
    enum Item: Sendable {
        case snapshot([UInt8])
        case change([UInt8])
        case degraded([UInt8])
        case recovered
        /// Once a look: when the page checks its sign-in and keeps its connection alive.
        case tick
    }

    private let service: any HubService
    private let interval: Duration
    private var known: [String: [UInt8]]?
    private var order: [String] = []
    private var degraded = false
    private var subscribers: [Int: AsyncStream<Item>.Continuation] = [:]
    /// Pages owed the whole list: new ones, and ones whose queue overflowed.
    private var owedSnapshot: Set<Int> = []
    private var lastID = 0
    private var loop: Task<Void, Never>?

    /// Events a page may have waiting before it is sent the whole list instead.
    static let queueLength = 32

    init(service: any HubService, interval: Duration) {
        self.service = service
        self.interval = interval
    }

    func subscribe() -> (id: Int, items: AsyncStream<Item>) {
        lastID += 1
        let (items, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .bufferingNewest(Self.queueLength))
        subscribers[lastID] = continuation
        if known != nil {
            continuation.yield(.snapshot(list()))
        } else {
            owedSnapshot.insert(lastID)
        }
        if loop == nil { loop = Task { await self.run() } }
        return (lastID, items)
    }

    func unsubscribe(_ id: Int) {
        subscribers.removeValue(forKey: id)?.finish()
        owedSnapshot.remove(id)
        guard subscribers.isEmpty else { return }
        loop?.cancel()
        loop = nil
        known = nil
    }

    private func run() async {
        while !Task.isCancelled {
            await look()
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func look() async {
        let reply = await service.devices()
        guard reply.status == 200, let json = reply.json, let devices = JSONBody.parse(json)?["devices"]?.arrayValue else {
            // The state cannot be read now: pages say the backend is degraded and keep their list.
            if !degraded { send(.degraded(reply.json ?? Array("{}".utf8))) }
            degraded = true
            send(.tick)
            return
        }
        var current: [String: [UInt8]] = [:]
        var order: [String] = []
        for device in devices {
            guard let app = device["app"]?.stringValue, let install = device["install"]?.stringValue else { continue }
            let key = app + "/" + install
            current[key] = JSONWriter.encode(device)
            order.append(key)
        }
        let previous = known
        known = current
        self.order = order
        if degraded { send(.recovered) }
        degraded = false
        if let previous {
            let upserts = order.filter { previous[$0] != current[$0] }.compactMap { current[$0] }
            let removed = previous.keys.filter { current[$0] == nil }.sorted()
            if !upserts.isEmpty || !removed.isEmpty { send(.change(Self.change(upserts, removed: removed)), skipping: owedSnapshot) }
        }
        if !owedSnapshot.isEmpty {
            let snapshot = list()
            for id in owedSnapshot { subscribers[id]?.yield(.snapshot(snapshot)) }
            owedSnapshot = []
        }
        send(.tick)
    }

    private func send(_ item: Item, skipping: Set<Int> = []) {
        for (id, subscriber) in subscribers where !skipping.contains(id) {
            if case .dropped = subscriber.yield(item) { owedSnapshot.insert(id) }
        }
    }

    private func list() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("devices")
        writer.beginArray()
        for key in order { if let device = known?[key] { writer.raw(device) } }
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
