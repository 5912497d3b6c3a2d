/** Routes: the shell and the landing page (Overview) are in the entry chunk, every other page
 * is lazy-loaded (its own chunk); the login page is public; an expired
 * session goes to /login?next=<the URL> and comes back there. */
import { createRouter, createWebHistory, type RouteRecordRaw } from 'vue-router'
import AppShell from '@/components/shell/AppShell.vue'
import OverviewPage from '@/pages/OverviewPage.vue'
import { useSession } from '@/stores/session'

export interface NavItem {
  name: string
  path: string
  group: 'overview' | 'pool' | 'access' | 'traffic' | 'admin'
  icon: string
}

/** The sidebar, grouped (DASHBOARD.md §2). */
export const NAV: NavItem[] = [
  { name: 'overview', path: '/', group: 'overview', icon: 'LayoutDashboard' },
  { name: 'accounts', path: '/accounts', group: 'pool', icon: 'Users' },
  { name: 'groups', path: '/groups', group: 'pool', icon: 'Boxes' },
  { name: 'keys', path: '/keys', group: 'access', icon: 'KeyRound' },
  { name: 'requests', path: '/requests', group: 'traffic', icon: 'ListOrdered' },
  { name: 'insights', path: '/insights', group: 'traffic', icon: 'ChartLine' },
  { name: 'ops', path: '/ops', group: 'traffic', icon: 'Activity' },
  { name: 'settings', path: '/settings', group: 'admin', icon: 'Settings' },
  { name: 'backups', path: '/backups', group: 'admin', icon: 'DatabaseBackup' },
  { name: 'audit', path: '/audit', group: 'admin', icon: 'ScrollText' },
  { name: 'system', path: '/system', group: 'admin', icon: 'Server' },
]

const routes: RouteRecordRaw[] = [
  { path: '/login', name: 'login', component: () => import('@/pages/LoginPage.vue'), meta: { public: true } },
  {
    path: '/',
    component: AppShell,
    children: [
      { path: '', name: 'overview', component: OverviewPage },
      { path: 'accounts', name: 'accounts', component: () => import('@/pages/AccountsPage.vue') },
      { path: 'accounts/:id(\\d+)', name: 'account', component: () => import('@/pages/AccountDetailPage.vue'), meta: { parent: 'accounts' } },
      { path: 'groups', name: 'groups', component: () => import('@/pages/GroupsPage.vue') },
      { path: 'keys', name: 'keys', component: () => import('@/pages/KeysPage.vue') },
      { path: 'requests', name: 'requests', component: () => import('@/pages/RequestsPage.vue') },
      { path: 'requests/:id', name: 'request', component: () => import('@/pages/RequestsPage.vue'), meta: { parent: 'requests' } },
      { path: 'insights', name: 'insights', component: () => import('@/pages/InsightsPage.vue') },
      { path: 'ops', name: 'ops', component: () => import('@/pages/OpsPage.vue') },
      { path: 'settings/:section?', name: 'settings', component: () => import('@/pages/SettingsPage.vue') },
      { path: 'backups', name: 'backups', component: () => import('@/pages/BackupsPage.vue') },
      { path: 'audit', name: 'audit', component: () => import('@/pages/AuditPage.vue') },
      { path: 'system', name: 'system', component: () => import('@/pages/SystemPage.vue') },
      { path: ':rest(.*)*', name: 'not-found', component: () => import('@/pages/NotFoundPage.vue') },
    ],
  },
]

export const router = createRouter({ history: createWebHistory(), routes, scrollBehavior: () => ({ top: 0 }) })

router.beforeEach(async (to) => {
  const session = useSession()
  if (!session.checked) {
    try {
      await session.check()
    } catch {
      // Server unreachable: the login page says so.
    }
  }
  if (to.meta.public) {
    if (to.name === 'login' && session.signedIn) return typeof to.query.next === 'string' && to.query.next.startsWith('/') ? to.query.next : '/'
    return true
  }
  if (!session.signedIn) return { name: 'login', query: { next: to.fullPath } }
  return true
})
