package import ApsioCore
import ApsioJSON
/// The live channel's bodies in JSON (16.4): those the device sends, written field by field, and
/// the backend's answers to a hello and to `next`, read with the strict parser (`LiveAnswerBody`).
package struct LiveBodies: LiveBodyCoding {
    package init() {}

    /// A hello. The proof goes in this body and nowhere else; never a `user.hash`.
    package func hello(identity: LiveIdentity, tester: TesterProof, reason: HelloReason?) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("install"); writer.string(identity.install)
        if let session = identity.session { writer.key("session"); writer.string(session) }
        writer.key("model"); writer.string(identity.model)
        writer.key("os"); writer.string(identity.os)
        writer.key("release"); writer.string(identity.release)
        writer.key("tester"); writer.string(tester.entryID)
        writer.key("proof"); writer.string(tester.secretHex)
        if let reason { writer.key("reason"); writer.string(reason.rawValue) }
        writer.endObject()
        return writer.bytes
    }

    /// A `frames` body. `metrics` and `wireframe` are already-encoded JSON objects.
    package func frames(
        install: String, state: FramesState, reason: String?, lines: ArraySlice<LiveLine>, droppedLines: Int,
        metrics: [UInt8]?, wireframe: [UInt8]?
    ) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512 + lines.count * 160 + (wireframe?.count ?? 0))
        writer.beginObject()
        writer.key("install"); writer.string(install)
        writer.key("state"); writer.string(state.rawValue)
        if let reason { writer.key("reason"); writer.string(reason) }
        writer.key("lines")
        writer.beginArray()
        for line in lines { line.write(to: &writer) }
        writer.endArray()
        // Not in the spec's table: how many lines the 200-a-body cap dropped since the last body,
        // so that a viewer sees a gap as a gap. A backend that does not know it ignores it.
        if droppedLines > 0 { writer.key("lines_dropped"); writer.int(Int64(droppedLines)) }
        if let metrics { writer.key("metrics"); writer.raw(metrics) }
        if let wireframe { writer.key("wireframe"); writer.raw(wireframe) }
        writer.endObject()
        return writer.bytes
    }

    package func results(install: String, result: CommandResult) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("install"); writer.string(install)
        writer.key("id"); writer.string(result.id)
        writer.key("name"); writer.string(result.name)
        writer.key("outcome"); writer.string(result.outcome.rawValue)
        writer.key("at"); writer.int(result.atUnixMs)
        writer.key("result")
        switch result.result {
        case .error(let text): writer.value(.object(["error": .string(text)]))
        case .until(let unixMs): writer.value(.object(["until": .number(Double(unixMs))]))
        case .encoded(let json): writer.raw(json)
        }
        writer.endObject()
        return writer.bytes
    }

    package func helloAnswer(_ body: [UInt8], limits: Limits) -> HelloAnswer {
        HelloAnswer(body: LiveAnswerBody.parse(body, limits: limits), limits: limits)
    }

    package func nextAnswer(_ body: [UInt8], limits: Limits) -> NextAnswer {
        NextAnswer(body: LiveAnswerBody.parse(body, limits: limits), limits: limits)
    }
}
