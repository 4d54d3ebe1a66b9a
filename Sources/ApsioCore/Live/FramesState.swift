/// The `state` of a `frames` body (16.4): the session streams, is paused, or has ended.
package enum FramesState: String, Sendable, Equatable {
    case live
    case paused
    case ended
}
