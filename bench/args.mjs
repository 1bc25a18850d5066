// Command-line options shared by the bench scripts: `--name value` pairs and `--flag` switches.
export function options(argv = process.argv.slice(2)) {
  return {
    value(name, fallback) {
      const at = argv.indexOf(`--${name}`);
      return at >= 0 && at + 1 < argv.length ? argv[at + 1] : fallback;
    },
    flag(name) {
      return argv.includes(`--${name}`);
    },
  };
}
