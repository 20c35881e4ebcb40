internal import CCurl
internal import Glibc

// The `@convention(c)` callbacks given to libcurl. Each receives the `Transfer` that
// `Transfer.start` retained for as long as its easy handle exists, so the pointer is always
// valid here; each forwards to a Swift method and returns what libcurl expects.

private func transfer(_ raw: UnsafeMutableRawPointer?) -> Transfer {
    Unmanaged<Transfer>.fromOpaque(raw!).takeUnretainedValue()
}

let writeTrampoline: curl_write_callback = { data, size, count, context in
    transfer(context).receive(UnsafeRawBufferPointer(start: data, count: size * count))
}

let headerTrampoline: curl_write_callback = { data, size, count, context in
    transfer(context).receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
}

let readTrampoline: curl_read_callback = { data, size, count, context in
    transfer(context).sendBody(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

let uploadReadTrampoline: curl_read_callback = { data, size, count, context in
    transfer(context).sendProducedBody(into: UnsafeMutableRawBufferPointer(start: data, count: size * count))
}

let seekTrampoline: curl_seek_callback = { context, offset, origin in
    guard origin == SEEK_SET else { return ccurl_seekfunc_cantseek() }
    return transfer(context).seekBody(to: Int64(offset))
}

let progressTrampoline: curl_xferinfo_callback = { context, downloadTotal, downloaded, uploadTotal, uploaded in
    transfer(context).reportProgress(
        downloadTotal: Int64(downloadTotal), downloaded: Int64(downloaded), uploadTotal: Int64(uploadTotal), uploaded: Int64(uploaded))
    return 0
}
