/**
 * Which live view a run gets: `auto` is the dashboard on an interactive terminal and plain
 * progress lines otherwise — and always plain under CI (CI=true), where logs are read later.
 */
export type UiMode = 'auto' | 'tui' | 'plain' | 'none';

export function resolveUiMode(requested: UiMode, environment: { readonly isTTY: boolean; readonly ci: string | undefined }): Exclude<UiMode, 'auto'> {
  if (requested !== 'auto') return requested;
  const inCi = environment.ci !== undefined && environment.ci !== '' && environment.ci !== 'false' && environment.ci !== '0';
  return environment.isTTY && !inCi ? 'tui' : 'plain';
}

/** Colour unless NO_COLOR is set to anything but the empty string (https://no-color.org). */
export function colourAllowed(env: { readonly NO_COLOR?: string | undefined }): boolean {
  return env.NO_COLOR === undefined || env.NO_COLOR === '';
}
