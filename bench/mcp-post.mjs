// One JSON-RPC request over Streamable HTTP in the 2026-07-28 era (its headers and `_meta`), as the benches that time
// a server from outside send it: the answer's result, or an Error with the server's message. `meta`: more `_meta` keys.
export function post(url, method, params, name, meta = {}) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  };
  if (name !== undefined) headers['mcp-name'] = name;
  const body = {
    jsonrpc: '2.0',
    id: 1,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  };
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) }).then(async (response) => {
    const text = await response.text();
    const json = text.startsWith('event:') ? JSON.parse(/^data: (.*)$/m.exec(text)[1]) : JSON.parse(text);
    if (json.error) throw new Error(json.error.message);
    return json.result;
  });
}
