/**
 * Renderer entry point: mounts the Svelte app into `#app`. The page talks to the main process only
 * through `window.letterdesk` (see lib/api.ts).
 */
import { mount } from 'svelte';
import App from './App.svelte';
import './styles/app.css';

const target = document.getElementById('app');
if (!target) throw new Error('Letterdesk: #app is missing from index.html');

export default mount(App, { target });
