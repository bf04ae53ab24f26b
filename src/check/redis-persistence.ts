import type { DurabilityDecision, RedisDurabilityFacts } from '../ledger/durability.ts';
import { error, ok, redisReplyText, warning, type CheckFinding } from './finding.ts';

/** The durability rule's verdict (docs/operators.md, "Durability") as findings, one line each. */
export function durabilityFindings(facts: RedisDurabilityFacts, decision: DurabilityDecision): CheckFinding[] {
  if (decision.mode === 'refuse') {
    // One finding per problem; the rule's closing line ("Nothing was sent. For a throwaway
    // set-up, …"), worded for an import that stopped, joins the last one as its alternative.
    const lines = decision.message.split('\n').filter((line) => line.trim() !== '');
    const closing = lines.filter((line) => line.startsWith('Nothing was sent.'));
    const problems = lines.filter((line) => !line.startsWith('Nothing was sent.'));
    const alternative = closing.map((line) => line.replace(/^Nothing was sent\.\s*/, '')).join(' ');
    if (alternative && problems.length) problems[problems.length - 1] += ` Until then imports send nothing. ${alternative}`;
    return problems.map((line) => error('redis-durability', 'BUILDSYNC_CONFIG_INVALID', line));
  }
  const what: Record<Exclude<DurabilityDecision['mode'], 'refuse'>, string> = {
    'aof-always': 'AOF with appendfsync always: every ledger note is on disk before Redis answers',
    waitaof: 'AOF, each ledger note confirmed on disk with WAITAOF',
    'aof-everysec': 'AOF with appendfsync everysec',
    replica: 'each ledger note confirmed by a replica (WAIT)',
    volatile: 'no AOF and no replica',
  };
  const replicas = 'replicas' in decision && decision.replicas ? `, and by ${decision.replicas} replica${decision.replicas > 1 ? 's' : ''} (WAIT)` : '';
  const policy = facts.maxmemoryPolicy === undefined ? 'maxmemory-policy not reported' : `maxmemory-policy ${facts.maxmemoryPolicy}`;
  const findings: CheckFinding[] = [];
  if (decision.warning) {
    for (const line of decision.warning.split('\n')) if (line.trim()) findings.push(warning('redis-durability', line));
  } else {
    findings.push(ok('redis-durability', `${what[decision.mode]}${replicas}; ${policy}`));
  }
  return findings;
}


/** The durability check when Redis would not tell its persistence and eviction policy. */
export function durabilityUnread(err: unknown): CheckFinding {
  const text = redisReplyText(err);
  // A refused INFO is already a redis-acl problem; counting it twice would not help.
  return /NOPERM/.test(text)
    ? warning('redis-durability', `not checked: reading persistence and eviction policy needs INFO (${text}; see redis-acl)`)
    : error('redis-durability', 'BUILDSYNC_REDIS_UNAVAILABLE', `cannot read Redis's persistence and eviction policy (INFO): ${text}`);
}
