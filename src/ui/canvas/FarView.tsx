/**
 * The far view's canvas (see far-view.ts), redrawn once a frame at most,
 * whenever React Flow's state (the view, a position, a size, the selection,
 * an edge) or a node's state changes. It lies in React Flow's viewport over
 * the (hidden) edges and the (transparent) nodes, and draws both; last in
 * the viewport, so the browser need not sort what it paints after it into
 * layers of its own (between the edges and the nodes it cost each frame
 * some 5 ms more). The viewport's transform is undone on it, so it covers
 * the pane at the screen's own resolution.
 */
import { useStoreApi, ViewportPortal } from '@xyflow/react';
import { useContext, useEffect, useState } from 'react';
import { edgePathsMaker } from './far-edges';
import { drawFarView, farCards, readFarPalette, type FarViewport } from './far-view';
import { NodeStatesContext } from './node-states';
import './canvas.css';

export function FarView() {
  const flow = useStoreApi();
  const states = useContext(NodeStatesContext);
  // Held as state: the layer it is put in may come into the page after this view.
  const [canvas, setCanvas] = useState<HTMLCanvasElement | null>(null);

  useEffect(() => {
    const context = canvas?.getContext('2d');
    if (!canvas || !context) return;
    const palette = readFarPalette(canvas);
    const edgePaths = edgePathsMaker();
    let frame = 0;
    const draw = () => {
      frame = 0;
      const { transform, width, height, nodeLookup, edges } = flow.getState();
      const view: FarViewport = {
        x: transform[0],
        y: transform[1],
        zoom: transform[2],
        width,
        height,
      };
      const scale = window.devicePixelRatio || 1;
      const [pixelsWide, pixelsHigh] = [Math.round(width * scale), Math.round(height * scale)];
      if (canvas.width !== pixelsWide || canvas.height !== pixelsHigh) {
        canvas.width = pixelsWide;
        canvas.height = pixelsHigh;
      }
      canvas.style.transform = `translate(${-view.x / view.zoom}px, ${-view.y / view.zoom}px) scale(${1 / view.zoom})`;
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
      const cards = farCards(nodeLookup.values(), (id) => states?.get(id), view);
      drawFarView(context, cards, edgePaths(edges, nodeLookup), view, palette, scale);
    };
    const schedule = () => {
      frame ||= requestAnimationFrame(draw);
    };
    schedule();
    const stopFlow = flow.subscribe(schedule);
    const stopStates = states?.subscribe(schedule);
    return () => {
      cancelAnimationFrame(frame);
      stopFlow();
      stopStates?.();
    };
  }, [canvas, flow, states]);

  // A picture of what the page holds as (transparent) far cards, which keep the names.
  return (
    <ViewportPortal>
      <canvas ref={setCanvas} className="fb-far-view" aria-hidden="true" />
    </ViewportPortal>
  );
}
