/**
 * Which WebSocket URL to open, from what the GM typed and the page's own protocol.
 *
 * Browsers refuse `ws://` from an `https://` page (mixed content) except to the local
 * machine, so: an explicit `ws://`/`wss://` is kept unless the page is HTTPS and the host
 * is remote (then `wss://`); `http(s)://` becomes `ws(s)://`; a bare `host:port` takes
 * `wss://` on an HTTPS page (unless local) and `ws://` otherwise. A missing path becomes
 * `/ws`, the server's only WebSocket endpoint.
 */

const LOCAL = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** True for hosts a browser treats as the local machine. */
export function isLocalHost(hostname) {
  return LOCAL.test(String(hostname || ""));
}

/**
 * @param {string} configured  the server URL setting (e.g. "ws://127.0.0.1:8750/ws")
 * @param {string} [pageProtocol]  `location.protocol` of the VTT page ("https:", "http:")
 * @returns {string} the URL to pass to `new WebSocket`
 * @throws {TypeError} when nothing usable was configured
 */
export function resolveServerUrl(configured, pageProtocol = "http:") {
  let text = String(configured || "").trim();
  if (!text) throw new TypeError("komasync: no server URL configured");
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const host = text.split("/")[0].replace(/:\d+$/, "");
    const secure = pageProtocol === "https:" && !isLocalHost(host);
    text = (secure ? "wss://" : "ws://") + text;
  }
  const url = new URL(text);
  if (url.protocol === "http:") url.protocol = "ws:";
  else if (url.protocol === "https:") url.protocol = "wss:";
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new TypeError(`komasync: unsupported server URL scheme ${url.protocol}`);
  }
  if (url.protocol === "ws:" && pageProtocol === "https:" && !isLocalHost(url.hostname)) {
    url.protocol = "wss:";
  }
  if (url.pathname === "" || url.pathname === "/") url.pathname = "/ws";
  url.hash = "";
  return url.toString();
}
