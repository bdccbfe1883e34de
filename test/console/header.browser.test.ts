import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { STORES } from '../support/stores.js';
import { startApi, type TestApi } from '../support/system.js';
import { axeClean, launch, shot } from './browser.js';

/**
 * The page header (the brand, the sections, the environment and language switches, the person) and the
 * sandbox bar under it, measured in Chromium: on a 375 px phone they took about 330 px, pushing every page's
 * content below the fold. Now two rows and a one-line bar — the sections in one row that scrolls sideways,
 * the current one brought into view — at most 120 px on a phone, and at most 130 px on a 1280 px screen
 * where every section shows without scrolling. Layout only: one store is enough.
 */
describe('Console: a compact page header (headless Chromium)', () => {
  let api: TestApi;
  let browser: Browser;
  let session = '';

  before(async function () {
    this.timeout(120_000);
    api = await startApi(STORES[0]!);
    browser = await launch();
    session = (await api.signIn()).split('=')[1]!;
  });
  beforeEach(function () {
    this.currentTest?.timeout(120_000);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  const open = async (width: number, lang: 'uk' | 'en', path: string): Promise<Page> => {
    const ctx = await browser.newContext({ viewport: { width, height: 800 } });
    await ctx.addCookies([
      { name: 'dmk_session', value: session, url: api.base },
      { name: 'dmk_lang', value: lang, url: api.base },
    ]);
    const page = await ctx.newPage();
    await page.goto(`${api.base}${path}`);
    await page.waitForLoadState('load');
    return page;
  };
  // No named functions inside: the page has no __name helper the test's compiler would call.
  const measure = (page: Page) =>
    page.evaluate(() => {
      const header = document.querySelector('header.top')!.getBoundingClientRect();
      const bar = document.querySelector('.sandbar');
      const nav = document.querySelector('header.top nav')!;
      const current = nav.querySelector('[aria-current=page]')!.getBoundingClientRect();
      const navBox = nav.getBoundingClientRect();
      const tools = [...document.querySelectorAll('header.top .tools > *')].map((el) => el.getBoundingClientRect());
      return {
        /** The header and the sandbox bar: what stands above the page's own content. */
        above: document.querySelector('main')!.getBoundingClientRect().top,
        header: header.height,
        bar: bar ? bar.getBoundingClientRect().height : 0,
        navHeight: navBox.height,
        navScrolls: nav.scrollWidth > nav.clientWidth,
        currentShown: current.left >= navBox.left && current.right <= navBox.right,
        toolsInside: tools.every((t) => t.left >= 0 && t.right <= window.innerWidth && t.bottom <= header.bottom && t.width > 0),
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      };
    });

  for (const lang of ['uk', 'en'] as const) {
    it(`375 px (${lang}): the header and the sandbox bar take at most 120 px; the sections scroll in one row, the current one in view`, async () => {
      for (const path of ['/console/', '/console/sandbox']) {
        const page = await open(375, lang, path);
        const m = await measure(page);
        expect(m.above, `${path}: ${JSON.stringify(m)}`).to.be.at.most(120);
        expect(m.navHeight, 'the sections in one row').to.be.at.most(36);
        expect(m.navScrolls, 'the row scrolls sideways').to.equal(true);
        expect(m.currentShown, `${path}: the current section is in view`).to.equal(true);
        expect(m.toolsInside, 'the environment and language switches and the person are in the header, on screen').to.equal(true);
        expect(m.overflow, 'nothing wider than the screen').to.be.at.most(0);
        await axeClean(page, `header ${path} 375 ${lang}`);
        await shot(page, `header-375-${lang}${path === '/console/' ? '' : '-sandbox'}`);
        await page.context().close();
      }
    });

    it(`1280 px (${lang}): at most 130 px, every section shown without scrolling`, async () => {
      const page = await open(1280, lang, '/console/');
      const m = await measure(page);
      expect(m.above, JSON.stringify(m)).to.be.at.most(130);
      expect(m.navScrolls, 'every section fits').to.equal(false);
      expect(m.toolsInside).to.equal(true);
      await shot(page, `header-1280-${lang}`);
      await page.context().close();
    });
  }
});
