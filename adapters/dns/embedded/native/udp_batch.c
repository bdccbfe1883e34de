/*
 * udp_batch: the embedded nameserver's UDP datagrams in batches (Linux recvmmsg/sendmmsg), for
 * adapters/dns/embedded/udp-batch.ts. Written by hand because no maintained npm package offers it and
 * Node 20's dgram reads and sends one datagram per system call and per JavaScript callback.
 *
 * It serves a duplicate of the fd of a bound dgram socket (dgram keeps binding, cluster sharing and
 * closing). When the fd is readable it reads up to BATCH datagrams with one recvmmsg into the
 * caller's arena, calls the JavaScript callback once with their count, and sends the replies the
 * callback wrote into the output arena with one sendmmsg, each to the address its query came from.
 * Up to ROUNDS batches per readiness, then it yields to the event loop (TCP, timers). A reply ready
 * only later (it waited for the store) goes out from the same socket with sendTo, one sendto each.
 *
 * Shared memory, all owned by JavaScript (ArrayBuffers, kept alive by references here):
 *   in:   BATCH slots of `slot` octets, the datagrams as received
 *   out:  BATCH slots of `slot` octets, the replies
 *   ctl:  BATCH × 8 int32: [0] length received, [1] peer port, [2] family (4 or 6), [3] 1 when the
 *         datagram was longer than its slot (truncated), [4] reply length (0: no reply), set by JS
 *   addr: BATCH × 16 octets: the peer address (IPv4 in the first 4)
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include <node_api.h>
#include <uv.h>

#define CTL_STRIDE 8
#define ROUNDS 4

typedef struct {
  napi_env env;
  uv_poll_t poll;
  int fd;
  int batch;
  size_t slot;
  unsigned char *in, *out, *addr;
  int32_t *ctl;
  napi_ref refs[4]; /* in, out, ctl, addr */
  napi_ref callback;
  napi_async_context async;
  struct mmsghdr *recv_hdrs, *send_hdrs;
  struct iovec *recv_iov, *send_iov;
  struct sockaddr_storage *peers;
  int closing;
  /* Freed once both are set: libuv let go of the poll handle, and JS's handle to us was collected. */
  int uv_closed, finalized;
  napi_async_cleanup_hook_handle cleanup;
  /* Figures for tests and operators: batches read, datagrams read, replies sent, replies the kernel refused. */
  double batches, received, sent, dropped, errors;
} batcher;

#define CHECK(env, call) do { if ((call) != napi_ok) { napi_throw_error((env), NULL, "udp_batch: " #call " failed"); return NULL; } } while (0)

static void on_env_teardown(napi_async_cleanup_hook_handle handle, void *arg);
static void shut(batcher *b, int release_refs);

static void release(batcher *b) {
  free(b->recv_hdrs); free(b->send_hdrs); free(b->recv_iov); free(b->send_iov); free(b->peers);
  free(b);
}

static void on_closed(uv_handle_t *h) {
  batcher *b = (batcher *)h->data;
  if (b->cleanup) { napi_remove_async_cleanup_hook(b->cleanup); b->cleanup = NULL; }
  b->uv_closed = 1;
  if (b->finalized) release(b);
}

/* The JS handle (an external) was collected: close() may no longer be called, so free once libuv is done. */
static void on_finalize(napi_env env, void *data, void *hint) {
  batcher *b = (batcher *)data;
  b->finalized = 1;
  if (b->uv_closed) release(b);
}

/* Sends the replies of one batch; a reply the kernel cannot take now is dropped, as any UDP datagram may be. */
static void send_replies(batcher *b, int n) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    int32_t len = b->ctl[i * CTL_STRIDE + 4];
    if (len <= 0 || (size_t)len > b->slot) continue;
    b->send_iov[m].iov_base = b->out + (size_t)i * b->slot;
    b->send_iov[m].iov_len = (size_t)len;
    memset(&b->send_hdrs[m].msg_hdr, 0, sizeof(struct msghdr));
    b->send_hdrs[m].msg_hdr.msg_name = &b->peers[i];
    b->send_hdrs[m].msg_hdr.msg_namelen = b->recv_hdrs[i].msg_hdr.msg_namelen;
    b->send_hdrs[m].msg_hdr.msg_iov = &b->send_iov[m];
    b->send_hdrs[m].msg_hdr.msg_iovlen = 1;
    m++;
  }
  int done = 0;
  while (done < m) {
    int r = sendmmsg(b->fd, b->send_hdrs + done, (unsigned int)(m - done), MSG_DONTWAIT);
    if (r > 0) { done += r; b->sent += r; continue; }
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { done++; b->dropped++; continue; } /* this one refused (e.g. no route): skip it */
    b->dropped += m - done;
    break;
  }
}

static void on_readable(uv_poll_t *h, int status, int events) {
  batcher *b = (batcher *)h->data;
  if (b->closing) return;
  if (status < 0) {
    /* POLLERR: libuv has stopped the handle. Take the pending socket error (a recv returns it), count it, poll again. */
    b->errors++;
    char scratch[1];
    recv(b->fd, scratch, 0, MSG_DONTWAIT | MSG_ERRQUEUE);
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(b->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    uv_poll_start(&b->poll, UV_READABLE, on_readable);
    return;
  }
  if (!(events & UV_READABLE)) return;
  napi_env env = b->env;
  napi_handle_scope scope;
  if (napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_value fn, recv, argv[1];
  napi_get_reference_value(env, b->callback, &fn);
  napi_get_global(env, &recv);
  for (int round = 0; round < ROUNDS && !b->closing; round++) {
    for (int i = 0; i < b->batch; i++) {
      b->recv_hdrs[i].msg_hdr.msg_namelen = sizeof(struct sockaddr_storage);
      b->recv_hdrs[i].msg_hdr.msg_flags = 0;
    }
    int n = recvmmsg(b->fd, b->recv_hdrs, (unsigned int)b->batch, MSG_DONTWAIT, NULL);
    if (n < 0) {
      if (errno == EINTR) continue;
      break; /* EAGAIN: drained. Anything else (an ICMP error queued on the socket) is consumed by this call. */
    }
    if (n == 0) break;
    b->batches++;
    b->received += n;
    for (int i = 0; i < n; i++) {
      int32_t *c = b->ctl + i * CTL_STRIDE;
      unsigned char *a = b->addr + i * 16;
      c[0] = (int32_t)b->recv_hdrs[i].msg_len;
      c[3] = (b->recv_hdrs[i].msg_hdr.msg_flags & MSG_TRUNC) ? 1 : 0;
      c[4] = 0;
      struct sockaddr_storage *p = &b->peers[i];
      if (p->ss_family == AF_INET) {
        struct sockaddr_in *s = (struct sockaddr_in *)p;
        c[1] = ntohs(s->sin_port); c[2] = 4;
        memcpy(a, &s->sin_addr, 4);
      } else if (p->ss_family == AF_INET6) {
        struct sockaddr_in6 *s = (struct sockaddr_in6 *)p;
        c[1] = ntohs(s->sin6_port); c[2] = 6;
        memcpy(a, &s->sin6_addr, 16);
      } else {
        c[1] = 0; c[2] = 0; c[0] = -1; /* not an IP peer: JS ignores it */
      }
    }
    napi_create_int32(env, n, &argv[0]);
    napi_value result;
    napi_status st = napi_make_callback(env, b->async, recv, fn, 1, argv, &result);
    if (st == napi_pending_exception) {
      napi_value err;
      napi_get_and_clear_last_exception(env, &err);
      napi_fatal_exception(env, err);
      break;
    }
    if (b->closing) break; /* closed from the callback: the arenas may be gone */
    send_replies(b, n);
    if (n < b->batch) break;
  }
  napi_close_handle_scope(env, scope);
}

static napi_value arena(napi_env env, napi_value v, void **data, size_t *len) {
  bool is;
  if (napi_is_arraybuffer(env, v, &is) != napi_ok || !is) { napi_throw_type_error(env, NULL, "udp_batch: expected an ArrayBuffer"); return NULL; }
  CHECK(env, napi_get_arraybuffer_info(env, v, data, len));
  return v;
}

/*
 * bindReusePort(host, port, bufferBytes) → fd: a non-blocking UDP socket bound with SO_REUSEPORT, so
 * that every DNS worker process binds its own socket on the one port and the kernel spreads senders
 * among them (as Knot's UDP threads do), instead of all workers waking for one shared socket.
 * Throws with the errno text (EADDRINUSE, EACCES…) when it cannot.
 */
static napi_value js_bind_reuse_port(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  char host[64];
  size_t hostLen;
  int32_t port, bufBytes;
  if (argc < 3 || napi_get_value_string_utf8(env, argv[0], host, sizeof host, &hostLen) != napi_ok ||
      napi_get_value_int32(env, argv[1], &port) != napi_ok || napi_get_value_int32(env, argv[2], &bufBytes) != napi_ok ||
      port < 1 || port > 65535) {
    napi_throw_type_error(env, NULL, "udp_batch.bindReusePort(host, port 1–65535, bufferBytes)");
    return NULL;
  }
  struct sockaddr_storage ss;
  socklen_t sslen;
  memset(&ss, 0, sizeof ss);
  struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
  if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
    s4->sin_family = AF_INET; s4->sin_port = htons((uint16_t)port); sslen = sizeof *s4;
  } else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6; s6->sin6_port = htons((uint16_t)port); sslen = sizeof *s6;
  } else {
    napi_throw_type_error(env, NULL, "udp_batch.bindReusePort: host must be an IP address");
    return NULL;
  }
  int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1, zero = 0;
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0 ||
      (ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) != 0) ||
      bind(fd, (struct sockaddr *)&ss, sslen) != 0) {
    char msg[160];
    snprintf(msg, sizeof msg, "udp_batch.bindReusePort %s:%d: %s", host, port, strerror(errno));
    if (fd >= 0) close(fd);
    napi_throw_error(env, uv_err_name(uv_translate_sys_error(errno)), msg);
    return NULL;
  }
  if (bufBytes > 0) {
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufBytes, sizeof bufBytes);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufBytes, sizeof bufBytes);
  }
  napi_value out;
  CHECK(env, napi_create_int32(env, fd, &out));
  return out;
}

/*
 * open(fd, batch, slot, in, out, ctl, addr, callback, own) → handle. own: the fd is ours (from
 * bindReusePort) and closed with the handle; otherwise a duplicate is served and the caller keeps fd.
 */
static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 9) { napi_throw_type_error(env, NULL, "udp_batch.open: 9 arguments"); return NULL; }
  bool own = false;
  CHECK(env, napi_get_value_bool(env, argv[8], &own));
  int32_t fd, batch, slot;
  CHECK(env, napi_get_value_int32(env, argv[0], &fd));
  CHECK(env, napi_get_value_int32(env, argv[1], &batch));
  CHECK(env, napi_get_value_int32(env, argv[2], &slot));
  if (fd < 0 || batch < 1 || batch > 1024 || slot < 512 || slot > 65536) { napi_throw_range_error(env, NULL, "udp_batch.open: fd, batch (1–1024) or slot (512–65536) out of range"); return NULL; }
  void *ptr[4];
  size_t len[4];
  for (int i = 0; i < 4; i++) if (!arena(env, argv[3 + i], &ptr[i], &len[i])) return NULL;
  if (len[0] < (size_t)batch * slot || len[1] < (size_t)batch * slot || len[2] < (size_t)batch * CTL_STRIDE * 4 || len[3] < (size_t)batch * 16) {
    napi_throw_range_error(env, NULL, "udp_batch.open: an arena is smaller than batch × slot");
    return NULL;
  }
  napi_valuetype t;
  CHECK(env, napi_typeof(env, argv[7], &t));
  if (t != napi_function) { napi_throw_type_error(env, NULL, "udp_batch.open: callback must be a function"); return NULL; }

  int dupfd = own ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (dupfd < 0) { napi_throw_error(env, NULL, "udp_batch.open: cannot duplicate the socket"); return NULL; }
  batcher *b = calloc(1, sizeof(batcher));
  if (b) {
    b->recv_hdrs = calloc((size_t)batch, sizeof(struct mmsghdr));
    b->send_hdrs = calloc((size_t)batch, sizeof(struct mmsghdr));
    b->recv_iov = calloc((size_t)batch, sizeof(struct iovec));
    b->send_iov = calloc((size_t)batch, sizeof(struct iovec));
    b->peers = calloc((size_t)batch, sizeof(struct sockaddr_storage));
  }
  if (!b || !b->recv_hdrs || !b->send_hdrs || !b->recv_iov || !b->send_iov || !b->peers) {
    if (b) release(b);
    if (!own) close(dupfd);
    napi_throw_error(env, NULL, "udp_batch.open: out of memory");
    return NULL;
  }
  b->env = env; b->fd = dupfd; b->batch = batch; b->slot = (size_t)slot;
  b->in = ptr[0]; b->out = ptr[1]; b->ctl = ptr[2]; b->addr = ptr[3];
  for (int i = 0; i < batch; i++) {
    b->recv_iov[i].iov_base = b->in + (size_t)i * b->slot;
    b->recv_iov[i].iov_len = b->slot;
    b->recv_hdrs[i].msg_hdr.msg_name = &b->peers[i];
    b->recv_hdrs[i].msg_hdr.msg_iov = &b->recv_iov[i];
    b->recv_hdrs[i].msg_hdr.msg_iovlen = 1;
  }
  for (int i = 0; i < 4; i++) napi_create_reference(env, argv[3 + i], 1, &b->refs[i]);
  napi_create_reference(env, argv[7], 1, &b->callback);
  napi_value name;
  napi_create_string_utf8(env, "DNS_UDP_BATCH", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &b->async);

  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || uv_poll_init_socket(loop, &b->poll, dupfd) != 0) {
    close(dupfd);
    for (int i = 0; i < 4; i++) napi_delete_reference(env, b->refs[i]);
    napi_delete_reference(env, b->callback);
    napi_async_destroy(env, b->async);
    release(b);
    napi_throw_error(env, NULL, "udp_batch.open: cannot poll the socket");
    return NULL;
  }
  b->poll.data = b;
  napi_value ext;
  if (napi_create_external(env, b, on_finalize, NULL, &ext) != napi_ok) {
    b->finalized = 1; /* no JS handle: free as soon as libuv lets go */
    shut(b, 1);
    napi_throw_error(env, NULL, "udp_batch.open: cannot create the handle");
    return NULL;
  }
  uv_poll_start(&b->poll, UV_READABLE, on_readable);
  /* Async: teardown of a worker thread waits for on_closed before the addon is unloaded. */
  napi_add_async_cleanup_hook(env, on_env_teardown, b, &b->cleanup);
  return ext;
}

static batcher *unwrap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  void *p = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_get_value_external(env, argv[0], &p) != napi_ok) {
    napi_throw_type_error(env, NULL, "udp_batch: expected a handle");
    return NULL;
  }
  return (batcher *)p;
}

/* Stops reading and closes the fd it serves (the duplicate, or the owned socket); memory goes in on_closed. */
static void shut(batcher *b, int release_refs) {
  b->closing = 1;
  uv_poll_stop(&b->poll);
  close(b->fd); /* at once, not in on_closed: a socket of a SO_REUSEPORT group must leave it before close() returns */
  if (release_refs) {
    for (int i = 0; i < 4; i++) napi_delete_reference(b->env, b->refs[i]);
    napi_delete_reference(b->env, b->callback);
    napi_async_destroy(b->env, b->async);
  }
  uv_close((uv_handle_t *)&b->poll, on_closed);
}

/* The environment (a worker thread, or the process) goes away with the handle still open; on_closed removes the hook, which lets teardown go on. */
static void on_env_teardown(napi_async_cleanup_hook_handle handle, void *arg) {
  batcher *b = (batcher *)arg;
  if (!b->closing) shut(b, 0);
  else if (b->uv_closed && b->cleanup) { napi_remove_async_cleanup_hook(b->cleanup); b->cleanup = NULL; }
}

/* close(handle): stops reading and closes the fd it serves. */
static napi_value js_close(napi_env env, napi_callback_info info) {
  batcher *b = unwrap(env, info);
  if (!b || b->closing) return NULL;
  if (b->cleanup) { napi_remove_async_cleanup_hook(b->cleanup); b->cleanup = NULL; }
  shut(b, 1);
  return NULL;
}

/* stats(handle) → [batches, datagrams received, replies sent, replies dropped, socket errors] (valid after close too) */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  batcher *b = unwrap(env, info);
  if (!b) return NULL;
  napi_value arr, v;
  napi_create_array_with_length(env, 5, &arr);
  double f[5] = { b->batches, b->received, b->sent, b->dropped, b->errors };
  for (uint32_t i = 0; i < 5; i++) { napi_create_double(env, f[i], &v); napi_set_element(env, arr, i, v); }
  return arr;
}

/*
 * sendTo(handle, buffer, address, port) → true when the kernel took it: one datagram from the served
 * socket, for a reply that is ready only after its batch went out (a DNS UPDATE, a TSIG-signed query:
 * they wait for the store). address is an IPv4 or IPv6 literal as onBatch's peers are formatted
 * (IPv4-mapped ::ffff:a.b.c.d included); it is written in the socket's own family. false (counted as
 * dropped) when the kernel cannot take it now or the handle is closed: lost as any UDP datagram may be.
 */
static napi_value js_send_to(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  void *p = NULL;
  void *data = NULL;
  size_t len = 0;
  bool isbuf = false;
  char host[64];
  size_t hostLen;
  int32_t port;
  if (argc < 4 || napi_get_value_external(env, argv[0], &p) != napi_ok || napi_is_buffer(env, argv[1], &isbuf) != napi_ok || !isbuf ||
      napi_get_buffer_info(env, argv[1], &data, &len) != napi_ok ||
      napi_get_value_string_utf8(env, argv[2], host, sizeof host, &hostLen) != napi_ok ||
      napi_get_value_int32(env, argv[3], &port) != napi_ok || port < 1 || port > 65535) {
    napi_throw_type_error(env, NULL, "udp_batch.sendTo(handle, buffer, address, port 1–65535)");
    return NULL;
  }
  batcher *b = (batcher *)p;
  napi_value out;
  if (b->closing) { CHECK(env, napi_get_boolean(env, false, &out)); return out; }
  struct in_addr a4;
  struct in6_addr a6;
  int is4 = inet_pton(AF_INET, host, &a4) == 1;
  if (!is4 && inet_pton(AF_INET6, host, &a6) != 1) {
    napi_throw_type_error(env, NULL, "udp_batch.sendTo: address must be an IP address");
    return NULL;
  }
  struct sockaddr_storage self;
  socklen_t selfLen = sizeof self;
  if (getsockname(b->fd, (struct sockaddr *)&self, &selfLen) != 0) self.ss_family = is4 ? AF_INET : AF_INET6;
  struct sockaddr_storage ss;
  socklen_t sslen;
  memset(&ss, 0, sizeof ss);
  struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
  struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
  if (self.ss_family == AF_INET6) {
    s6->sin6_family = AF_INET6; s6->sin6_port = htons((uint16_t)port); sslen = sizeof *s6;
    if (is4) { s6->sin6_addr.s6_addr[10] = 0xff; s6->sin6_addr.s6_addr[11] = 0xff; memcpy(&s6->sin6_addr.s6_addr[12], &a4, 4); }
    else s6->sin6_addr = a6;
  } else {
    if (!is4) {
      if (!IN6_IS_ADDR_V4MAPPED(&a6)) { b->dropped++; CHECK(env, napi_get_boolean(env, false, &out)); return out; } /* no IPv6 on an IPv4 socket */
      memcpy(&a4, &a6.s6_addr[12], 4);
    }
    s4->sin_family = AF_INET; s4->sin_port = htons((uint16_t)port); s4->sin_addr = a4; sslen = sizeof *s4;
  }
  ssize_t r;
  do r = sendto(b->fd, data, len, MSG_DONTWAIT, (struct sockaddr *)&ss, sslen); while (r < 0 && errno == EINTR);
  if (r < 0) b->dropped++;
  else b->sent++;
  CHECK(env, napi_get_boolean(env, r >= 0, &out));
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    { "open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL },
    { "close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL },
    { "stats", NULL, js_stats, NULL, NULL, NULL, napi_default, NULL },
    { "bindReusePort", NULL, js_bind_reuse_port, NULL, NULL, NULL, napi_default, NULL },
    { "sendTo", NULL, js_send_to, NULL, NULL, NULL, napi_default, NULL },
  };
  napi_define_properties(env, exports, 5, props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
