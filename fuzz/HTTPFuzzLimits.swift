// The HTTP parsers' limits while fuzzing: small enough that a few hundred bytes reach every check.

let fuzzLimits = HTTPLimits(
    maxStartLineBytes: 128, maxHeaderBytes: 512, maxHeaderCount: 8, maxChunkLineBytes: 32, maxBodyBytes: 1024)
