/**
 * Why the first statement against the store failed, in words, for the reasons a user can act
 * on (the server's or the socket's code); otherwise a pointer to the cause, which keeps the
 * driver's own error whole.
 */
export function setupFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'the database server refused the connection (is it running, at that host and port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the database host was not found';
    case 'ETIMEDOUT':
      return 'the connection to the database server timed out';
    case '3D000':
      return 'the database does not exist';
    case '28P01':
    case '28000':
      return 'the server refused the credentials';
    case '42501':
      return 'the user may not create or use the checkpoint tables (permission denied)';
    case '3F000':
      return 'the schema does not exist';
    default:
      return 'see the cause';
  }
}
