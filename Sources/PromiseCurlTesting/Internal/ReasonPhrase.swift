/// The reason phrase a server sends with `code` (nginx's and RFC 9110's wording), so a
/// scripted response reads like a real one; empty for a code not listed.
func standardReasonPhrase(_ code: Int) -> String {
    switch code {
    case 200: "OK"
    case 201: "Created"
    case 202: "Accepted"
    case 204: "No Content"
    case 206: "Partial Content"
    case 301: "Moved Permanently"
    case 302: "Moved Temporarily"
    case 303: "See Other"
    case 304: "Not Modified"
    case 307: "Temporary Redirect"
    case 308: "Permanent Redirect"
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 405: "Not Allowed"
    case 409: "Conflict"
    case 410: "Gone"
    case 413: "Request Entity Too Large"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Temporarily Unavailable"
    case 504: "Gateway Time-out"
    default: ""
    }
}
