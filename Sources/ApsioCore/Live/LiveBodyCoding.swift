/// How the live channel's bodies are spelt on the wire (16.4): the bodies the device sends, and
/// the backend's answers to a hello and to `next` read into what the channel acts on.
///
/// The channel decides what goes and when, and counts every body as sent; the spelling is not a
/// rule of its own, so it is injected like `BodyCompressing`, and the pure state machine needs no
/// JSON. The one implementation is ApsioWire's `LiveBodies`.
package protocol LiveBodyCoding: Sendable {
    /// A hello. The proof goes in this body and nowhere else; never a `user.hash`.
    func hello(identity: LiveIdentity, tester: TesterProof, reason: HelloReason?) -> [UInt8]

    /// A `frames` body. `metrics` and `wireframe` are already-encoded JSON objects.
    func frames(
        install: String, state: FramesState, reason: String?, lines: ArraySlice<LiveLine>, droppedLines: Int,
        metrics: [UInt8]?, wireframe: [UInt8]?
    ) -> [UInt8]

    /// A `results` body.
    func results(install: String, result: CommandResult) -> [UInt8]

    /// The body of a 2xx answer to a hello, read defensively: whatever the bytes, an answer.
    func helloAnswer(_ body: [UInt8], limits: Limits) -> HelloAnswer

    /// The body of a 2xx answer to `next`, read defensively.
    func nextAnswer(_ body: [UInt8], limits: Limits) -> NextAnswer
}
