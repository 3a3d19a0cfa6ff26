/**
 * Which live view a run gets: `auto` is the dashboard on an interactive terminal and plain
 * progress lines otherwise — and always plain under CI (CI=true), where logs are read later.
 */
export type UiMode = 'auto' | 'tui' | 'plain' | 'none';

export function resolveUiMode(
  requested: UiMode,
  environment: { readonly isTTY: boolean; readonly ci: string | undefined },
): Exclude<UiMode, 'auto'> {
  if (requested !== 'auto') return requested;
  const inCi =
    environment.ci !== undefined && environment.ci !== '' && environment.ci !== 'false' && environment.ci !== '0';
  return environment.isTTY && !inCi ? 'tui' : 'plain';
}
