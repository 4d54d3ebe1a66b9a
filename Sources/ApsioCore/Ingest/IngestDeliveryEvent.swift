/// What the runtime tells an app's delivery.
package enum IngestDeliveryEvent: Sendable, Equatable {
    /// The queue changed: records came, or the caller advanced past a batch it was told to
    /// acknowledge or drop. After `.acknowledge`, `.dropBatch` and `.dropQueue` the delivery sends
    /// nothing until the queue is reported again, so it never asks for records already gone.
    case queued(IngestQueueLevel)
    /// A policy is known, from the backend or the last good one on disk. Until then records are held (15.3).
    case policyArrived
    /// The Resource is settled (the delivery was made to wait for it): batches may go.
    case resourceSettled
    /// The app file's `Consent=`: only `granted` lets anything leave.
    case consent(granted: Bool)
    /// The policy's `kill_switch` (12.3).
    case killSwitch(Bool)
    /// Low Power Mode, Low Data Mode, Data Saver (4.4).
    case modes(lowPower: Bool, lowData: Bool, dataSaver: Bool)
    /// What came back for a batch.
    case answered(IngestRequestID, LiveResponse)
    /// `nextDeadline` came.
    case tick
}
