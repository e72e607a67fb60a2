#include "gpuplan/url.h"

#include <string.h>
#include <strings.h>

gp_status gp_url_check_source(const char *url, gp_err *err) {
    size_t skip;
    if (strncasecmp(url, "http://", 7) == 0)
        skip = 7;
    else if (strncasecmp(url, "https://", 8) == 0)
        skip = 8;
    else
        return gp_errorf(err, GP_E_INPUT, "url", "not an http:// or https:// URL");
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        if (*p <= 0x20 || *p == 0x7f)
            return gp_errorf(err, GP_E_INPUT, "url", "a URL holds no spaces or control characters");
    const char *host = url + skip;
    size_t authority = strcspn(host, "/?#");
    if (memchr(host, '@', authority))
        return gp_errorf(err, GP_E_INPUT, "url",
                         "a URL with a user name or password would keep it in the database in "
                         "clear: put credentials in ~/.netrc, or a bearer token in a "
                         "--token-file");
    if (authority == 0 || host[0] == ':')
        return gp_errorf(err, GP_E_INPUT, "url", "the URL names no host");
    return GP_OK;
}

gp_status gp_token_parse(const char *buf, size_t len, const char *origin, char *out, size_t cap,
                         gp_err *err) {
    out[0] = '\0';
    const char *nl = memchr(buf, '\n', len);
    size_t n = nl ? (size_t)(nl - buf) : len;
    while (n > 0 && (buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    if (n == 0)
        return gp_errorf(err, GP_E_INPUT, origin, "the token file's first line is empty");
    if (n >= cap)
        return gp_errorf(err, GP_E_INPUT, origin, "the token is longer than %zu bytes", cap - 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c < 0x20 || c == 0x7f)
            return gp_errorf(err, GP_E_INPUT, origin,
                             "the token holds a control character (byte %zu)", i + 1);
    }
    memcpy(out, buf, n);
    out[n] = '\0';
    return GP_OK;
}
