export const theme = {
  colors: {
    text: '#1f2933',
    muted: '#52606d',
    background: '#f5f7fa',
    surface: '#ffffff',
    border: '#d9e2ec',
    primary: '#1d4ed8',
    primaryHover: '#1e40af',
    primaryText: '#ffffff',
    danger: '#b91c1c',
    dangerBackground: '#fef2f2',
    warningBackground: '#fff7e0',
    warningText: '#7a4b00',
    rowHover: '#eef4ff',
    sidebar: '#102a43',
    sidebarText: '#f0f4f8',
    sidebarActive: '#243b53',
    focus: '#f59e0b',
  },
  fonts: {
    body: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  },
  radius: '6px',
  sidebarWidth: '19em',
  wide: '@media (min-width: 64em)',
} as const;

export type AppTheme = typeof theme;

declare module '@emotion/react' {
  export interface Theme {
    colors: AppTheme['colors'];
    fonts: AppTheme['fonts'];
    radius: AppTheme['radius'];
    sidebarWidth: AppTheme['sidebarWidth'];
    wide: AppTheme['wide'];
  }
}
