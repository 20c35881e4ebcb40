// A program that depends on nothing but the PromiseCurl product: PromiseCurlTests runs it
// against a loopback server and checks with ldd that it links libcurl and neither libuv nor
// libsqlite3.
//
//   promisecurl-minimal URL
import PromiseCurl

let url = CommandLine.arguments.dropFirst().first ?? "http://127.0.0.1:8080/"
let done = CurlClient.shared.get(url)
    .validate()
    .then { response in print(response.status.code, response.body.count) }
do {
    _ = try awaitPromise(done)
} catch {
    print("error:", error)
}
