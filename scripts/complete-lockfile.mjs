// The npm registry mirror this project is built against lacks the non-Linux platform
// binaries of @biomejs/biome (404), so `npm install` leaves them out of package-lock.json
// and `npm ci` then rejects the lockfile as out of sync. This adds an entry for each missing
// optional platform package, with the os/cpu/libc of its name, so npm ci accepts the
// lockfile and skips them on machines they don't fit. Run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const entry of Object.values(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (packages[key] !== undefined) continue;
    const match = /-(android|darwin|linux|win32|freebsd)-(arm64|x64|arm|ia32)(-musl)?$/u.exec(name);
    if (match === null) continue;
    packages[key] = {
      version,
      cpu: [match[2]],
      dev: entry.dev === true ? true : undefined,
      ...(match[3] ? { libc: ['musl'] } : {}),
      optional: true,
      os: [match[1]],
    };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} optional platform entr${added === 1 ? 'y' : 'ies'}`);
