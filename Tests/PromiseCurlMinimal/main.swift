// A program that depends on nothing but the PromiseCurl product: PromiseCurlTests runs it
// against a loopback server and checks with ldd that it links libcurl and neither libuv nor
// libsqlite3. It also serves the DNS-failure test, which runs it in a network namespace of
// its own (no route anywhere, so a name lookup fails without sending anything).
//
//   promisecurl-minimal URL…     # one line per URL, in order, on one client:
//                                # "STATUS BYTES" or "error: CODE: DESCRIPTION"
import PromiseCurl

var urls = Array(CommandLine.arguments.dropFirst())
if urls.isEmpty { urls = ["http://127.0.0.1:8080/"] }
// A client of its own, shut down before the program ends, so that its thread has let go of
// every transfer when the process exits (AddressSanitizer's leak check runs at exit).
do throws(CurlError) {
    let client = try CurlClient()
    for url in urls {
        let done = client.get(url)
            .validate()
            .then { response in print(response.status.code, response.body.count) }
        do {
            _ = try awaitPromise(done)
        } catch let error as CurlError {
            print("error: \(error.code): \(error)")
        } catch {
            print("error:", error)
        }
    }
    _ = try? awaitPromise(client.shutdown())
} catch {
    print("error: \(error.code): \(error)")
}
