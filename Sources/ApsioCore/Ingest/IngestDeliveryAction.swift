/// What an app's delivery asks the runtime to do, in order.
package enum IngestDeliveryAction: Sendable, Equatable {
    /// Encode records from the head of the queue, up to `limit`, and `POST` them to `/v1/logs`;
    /// answer with `.answered(id, …)`.
    case send(IngestRequestID, limit: IngestBatchLimit)
    /// Abandon the request; its answer, if one still comes, is ignored.
    case cancel(IngestRequestID)
    /// The backend accepted the batch: advance the cursor past its records, then report the queue.
    case acknowledge(IngestRequestID)
    /// The batch will never be accepted: advance past its records, count them as dropped
    /// (`apsio.queue.dropped`), then report the queue.
    case dropBatch(IngestRequestID, DropReason)
    /// Drop everything queued for the app (consent withdrawn, kill switch).
    case dropQueue(QueueDropReason)
    /// The backend answered 415: send this batch and every later one in the other OTLP encoding,
    /// until `apsiod` restarts.
    case switchEncoding
    /// The backend answered a zstd batch with `status` (400 or 415) before it accepted any: send
    /// this batch and every later one gzip-compressed, until `apsiod` restarts.
    case fallBackToGzip(status: Int)
    /// Nothing more is sent for this app until `apsiod` restarts; its queue is kept.
    case stopped(StopReason)

    /// Whether it sends the batch again at once in another form (encoding or compression): the
    /// answer that asked for it is no failure.
    package var resendsOtherwise: Bool {
        switch self {
        case .switchEncoding, .fallBackToGzip: true
        default: false
        }
    }

    /// Whether it moves the queue past batch `id`: the batch was answered for good.
    package func movesPast(_ id: IngestRequestID) -> Bool {
        switch self {
        case .acknowledge(let acknowledged): acknowledged == id
        case .dropBatch(let dropped, _): dropped == id
        default: false
        }
    }

    package enum DropReason: String, Sendable, Equatable {
        /// 400: the backend refused the batch as malformed; sending it again cannot help.
        case rejected
        /// 413 for a batch of a single record: it cannot be split further.
        case tooLarge
    }

    package enum QueueDropReason: String, Sendable, Equatable {
        case consentWithdrawn
        case killSwitch
    }

    package enum StopReason: String, Sendable, Equatable {
        /// 401: the backend does not know the app key.
        case appKeyUnknown
    }
}
