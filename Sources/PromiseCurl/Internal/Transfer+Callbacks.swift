internal import CCurl
import Dispatch
import Glibc
@_spi(ContextContract) import PromiseCore
internal import PromiseSystem

/// What the C callbacks do, on the driver thread, inside `curl_multi_perform`. None of them
/// runs user code or touches the multi handle; a problem is recorded in `failure` and libcurl
/// is told to stop (a short count), so the transfer ends through the usual path.
extension Transfer {
    /// The `Content-Length` of the response being received, if it has one.
    private var announcedLength: Int? {
        var length: curl_off_t = -1
        guard let easy, ccurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK, length >= 0 else { return nil }
        return Int(length)
    }

    /// `CURLOPT_WRITEFUNCTION`: collect, write or drop the body, as the state machine decides.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        switch machine.bodyArrived(
            count: bytes.count, collected: body.count, status: head.status, hasLocation: head.fields[.location] != nil,
            announcedLength: announcedLength)
        {
        case .drop:
            return bytes.count
        case .stop:
            return 0
        case .write:
            guard let sink else { preconditionFailure("a download's body arrived without its file") }
            guard sink.write(bytes) else {
                machine.callbackFailed(
                    error(.fileError, "writing the download to '\(sink.target)' failed: \(ErrnoText.describe(sink.writeErrno)); the target was left as it was"))
                return 0
            }
            return bytes.count
        case .stream:
            guard let stream else { preconditionFailure("a streamed body arrived without its stream") }
            return stream.chunkArrived(bytes, outbox: progressOutbox) ? bytes.count : ccurl_writefunc_pause()
        case .collect:
            if body.count + bytes.count > body.capacity { reserveForBody(adding: bytes.count) }
            body.append(contentsOf: bytes)
            return bytes.count
        }
    }

    /// Grows `body` before it overflows, trusting the announced `Content-Length` in two steps:
    /// at most ``largestReservation`` before any byte has arrived, then, once the body has
    /// outgrown that, the whole announced length in one allocation, so a large body is never
    /// copied while it grows. A server may announce far more than it sends (2^62 bytes): the
    /// whole length is reserved only if it is within the body limit and an allocation of that
    /// size succeeds now; otherwise the body grows with what arrives.
    private func reserveForBody(adding count: Int) {
        guard let easy else { return }
        var announced: curl_off_t = -1
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced)
        let needed = body.count + count
        guard announced > 0, Int64(announced) <= Int64(machine.limits.bodyLimit ?? 0), Int(announced) >= needed else { return }
        let expected = Int(announced)
        if body.isEmpty {
            body.reserveCapacity(Swift.max(needed, Swift.min(expected, Self.largestReservation)))
        } else if expected > body.capacity, Self.canAllocate(expected) {
            body.reserveCapacity(expected)
        }
    }

    /// Whether `bytes` can be allocated at the moment: `malloc` says so where the array's own
    /// allocation would trap instead of failing. More than the machine's memory is refused
    /// without asking (an allocator may abort on such a size rather than return null, as
    /// AddressSanitizer's does).
    private static func canAllocate(_ bytes: Int) -> Bool {
        guard bytes <= physicalMemory, let probe = malloc(bytes) else { return false }
        free(probe)
        return true
    }

    /// The machine's physical memory in bytes.
    private static let physicalMemory: Int = {
        let pages = sysconf(Int32(_SC_PHYS_PAGES)), size = sysconf(Int32(_SC_PAGESIZE))
        guard pages > 0, size > 0 else { return 0 }
        return pages.multipliedReportingOverflow(by: size).overflow ? .max : pages * size
    }()

    /// The most body capacity reserved before any byte has arrived, from an announced length.
    static let largestReservation = 1 << 20

    /// `CURLOPT_HEADERFUNCTION`: one header line.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) -> Int {
        let fits = head.feed(line)
        guard machine.headLineArrived(fits: fits, headLimit: head.limit) == .proceed else { return 0 }
        if stream != nil, line.count <= 2, line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }),
            machine.headEnded(status: head.status, hasLocation: head.fields[.location] != nil) == .deliverHead,
            let easy
        {
            // Delivered once libcurl has returned, outside every callback.
            let response = responseSoFar(easy, body: [])
            progressOutbox.add(InlineContext()) { [self] in promise.resolveFromLibrary(.success(response)) }
        }
        return line.count
    }

    /// `CURLOPT_READFUNCTION`: the next piece of a file body.
    func sendBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let file = uploadFile, let count = file.read(into: buffer) else {
            machine.callbackFailed(error(.readError, "reading the request body file failed: \(ErrnoText.describe(uploadFile?.readErrno ?? 0))"))
            return ccurl_readfunc_abort()
        }
        return count
    }

    /// `CURLOPT_READFUNCTION` for a produced body: what the producer wrote, a pause while it
    /// writes nothing, the end once it returned.
    func sendProducedBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let upload else { preconditionFailure("a produced body was read without its stream") }
        return upload.read(into: buffer) { failure in machine.callbackFailed(failure) }
    }

    /// `CURLOPT_SEEKFUNCTION`: rewind a file body.
    func seekBody(to offset: Int64) -> Int32 {
        guard let file = uploadFile else { return ccurl_seekfunc_cantseek() }
        return file.seek(to: offset) ? ccurl_seekfunc_ok() : ccurl_seekfunc_fail()
    }

    /// `CURLOPT_XFERINFOFUNCTION`: queue progress for the user's context, at most ten times a
    /// second. The driver hands the queue over once libcurl has returned, so no user code
    /// ever runs inside a libcurl callback, even on the inline context.
    func reportProgress(downloadTotal: Int64, downloaded: Int64, uploadTotal: Int64, uploaded: Int64, final: Bool = false) {
        guard let handler = request.onProgress else { return }
        let report = CurlProgress(
            downloaded: downloaded, expectedDownload: downloadTotal > 0 ? downloadTotal : nil,
            uploaded: uploaded, expectedUpload: uploadTotal > 0 ? uploadTotal : nil)
        guard progress.shouldReport(report, final: final) else { return }
        progressOutbox.add(request.progressHandlerContext ?? Promises.defaultContext) { handler(report) }
    }

    /// The last report, sent once more when the transfer ends so the final count is seen.
    func reportFinalProgress() {
        guard request.onProgress != nil, let easy else { return }
        var downloaded: curl_off_t = 0, downloadTotal: curl_off_t = 0, uploaded: curl_off_t = 0, uploadTotal: curl_off_t = 0
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_SIZE_DOWNLOAD_T, &downloaded)
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &downloadTotal)
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
        _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_UPLOAD_T, &uploadTotal)
        reportProgress(
            downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded), final: true)
    }
}

/// Rate-limits progress reports: a report goes out when something changed and 100 ms have
/// passed since the last one, and always at the end.
struct ProgressThrottle {
    private var last: CurlProgress?
    private var lastTime: UInt64 = 0

    mutating func shouldReport(_ report: CurlProgress, final: Bool) -> Bool {
        if report == last { return false }
        let now = DispatchTime.now().uptimeNanoseconds
        guard final || last == nil || now - lastTime >= 100_000_000 else { return false }
        last = report
        lastTime = now
        return true
    }
}

/// Progress reports made during one pass of the driver (inside `curl_multi_perform`, or as a
/// transfer completes), handed to their contexts by ``deliver()`` once libcurl has returned.
///
/// `@unchecked Sendable`: created with the driver, then used on the driver thread only.
final class ProgressOutbox: @unchecked Sendable {
    private var reports: [(context: any ExecutionContext, work: @Sendable () -> Void)] = []

    /// Whether the driver is inside a libcurl call that can run callbacks (for tests).
    var insideLibcurl = false

    func add(_ context: any ExecutionContext, _ work: @escaping @Sendable () -> Void) {
        reports.append((context, work))
    }

    /// Hands every queued report to its context, in the order they were made.
    func deliver() {
        guard !reports.isEmpty else { return }
        let due = reports
        reports.removeAll(keepingCapacity: due.count <= 64)
        // Through the scheduler, so that in the driver's batched turn a report keeps its place
        // before the callbacks of the promise it reports on.
        for report in due {
            AdapterSupport.submit(report.context, report.work)
        }
    }
}
